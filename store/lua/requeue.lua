-- Re-queue one dead letter: XADD its original fields to its original stream and XDEL
-- it, atomically, only if it still exists (so two operators cannot replay it twice).
-- KEYS[1]: dead-letters:{p}; KEYS[2]: the original input stream (same {p}).
-- ARGV[1]: the dead letter's entry id; ARGV[2..]: the original fields, flat.
-- Returns the new entry id, or false when the dead letter is gone.
if #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1]) == 0 then
  return false
end
local fields = {}
for i = 2, #ARGV do fields[#fields + 1] = ARGV[i] end
local id = redis.call('XADD', KEYS[2], '*', unpack(fields))
redis.call('XDEL', KEYS[1], ARGV[1])
return id
