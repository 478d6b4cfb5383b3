-- Remove from an index the members whose removal instant has come, atomically, so a
-- commit that changes one of them meanwhile (and takes it out of the removal set, or
-- scores it anew) is never undone (store/scope_index.py `prune_scopes_index`).
-- KEYS[1]: the removal set (member -> Redis ms); KEYS[2..]: the index sets (same {p}).
-- ARGV[1]: now (Redis ms); ARGV[2]: at most this many members.
-- Returns how many members were removed.
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
if #due == 0 then return 0 end
for i = 2, #KEYS do
  redis.call('ZREM', KEYS[i], unpack(due))
end
redis.call('ZREM', KEYS[1], unpack(due))
return #due
