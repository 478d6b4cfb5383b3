-- Compact idle sessions of one partition to their ordering watermark (all KEYS share {p}).
--
-- KEYS[1]: the idle index `idle:{p}`; KEYS[2..]: session hashes.
-- ARGV[1]: the new version token; ARGV[2]: Redis time (ms) the caller read;
-- then per session (KEYS[i + 1]): the version the caller read, its member in the index,
-- and '1' to compact it or '0' to keep its state (a kept record depends on it).
-- A session whose version moved since the read (a commit ran) or that has a gap open
-- (`g`: entries parked) is left as it is: its commits keep the index. One compacted
-- loses its core state `c` and gets a new version (written anew, so it is small again), so a worker's cached copy of it fails
-- its next commit's check and is reloaded; `n` and `k` stay, so every later input is
-- still a duplicate, late, or applied in order (R15). One kept is scored anew (checked
-- again after another retention). Every check runs before the first write.
-- Returns {compacted, kept}.
local token, now = ARGV[1], ARGV[2]
local function caught(reply)
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 9) ~= 'WRONGTYPE' then error(reply) end
    return true
  end
  return false
end
if caught(redis.pcall('ZRANGE', KEYS[1], 0, 0)) then
  return redis.error_reply('compact: WRONGTYPE ' .. KEYS[1] .. ' is not a zset')
end
local plan = {}
for i = 2, #KEYS do
  local a = 3 + (i - 2) * 3
  local reply = redis.pcall('HMGET', KEYS[i], 'v', 'g')
  if not caught(reply) and (reply[1] or '') == ARGV[a] and not reply[2] then
    plan[#plan + 1] = {KEYS[i], ARGV[a + 1], ARGV[a + 2] == '1'}
  end
end
local compacted, kept = 0, 0
for _, p in ipairs(plan) do
  if p[3] then
    -- Emptied and written anew (Redis deletes a hash with its last field), so it is a
    -- small listpack again: a hash once converted to a hashtable never converts back.
    local kept_fields = redis.call('HMGET', p[1], 'n', 'k')
    redis.call('HDEL', p[1], 'n', 'v', 'c', 'k')
    redis.call('HSET', p[1], 'n', kept_fields[1], 'v', token)
    if kept_fields[2] then redis.call('HSET', p[1], 'k', kept_fields[2]) end
    redis.call('ZREM', KEYS[1], p[2])
    compacted = compacted + 1
  else
    redis.call('ZADD', KEYS[1], now, p[2])
    kept = kept + 1
  end
end
return {compacted, kept}
