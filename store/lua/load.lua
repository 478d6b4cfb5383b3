-- Read the state of many scopes and sessions of one partition in one round trip.
-- KEYS: the keys to read. ARGV[i]: what KEYS[i] is, which says what to read:
--   "scope"   -> HMGET v s
--   "session" -> HMGET n v c k g
--   "parked"  -> HGETALL (a flat field/value list; empty when nothing is parked)
-- Returns one reply per key, in order. Read-only. A key of another type (WRONGTYPE)
-- answers its error message as a plain string in its place instead of failing the
-- whole load, so the processor isolates that one unit and serves the others.
local out = {}
local commands = {
  scope = {'HMGET', 'v', 's'},
  session = {'HMGET', 'n', 'v', 'c', 'k', 'g'},
  parked = {'HGETALL'},
}
for i, key in ipairs(KEYS) do
  local command = commands[ARGV[i]]
  if not command then
    return redis.error_reply('load: unknown kind ' .. tostring(ARGV[i]))
  end
  local reply = redis.pcall(command[1], key, unpack(command, 2))
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 9) ~= 'WRONGTYPE' then
      return reply -- not the key's problem (NOPERM): the load fails
    end
    out[i] = key .. ': ' .. reply.err
  else
    out[i] = reply
  end
end
return out
