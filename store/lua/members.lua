-- The live workers taking part in partition ownership (store/ownership.py).
-- KEYS[1]: accord:members, a sorted set consumer -> Redis time (ms) of its last beat.
-- ARGV[1]: 'beat' | 'leave' | 'read'; ARGV[2]: consumer ('' for read); ARGV[3]: how
-- long a member counts as live after its last beat, ms.
-- Returns {Redis time ms, {consumer, last beat ms, ...}} of the live members (name order
-- is the caller's business). 'beat' and 'leave' also drop members dead past that time.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = KEYS[1]
local cutoff = now - tonumber(ARGV[3])
if ARGV[1] == 'beat' then
  redis.call('ZADD', key, now, ARGV[2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. cutoff)
elseif ARGV[1] == 'leave' then
  redis.call('ZREM', key, ARGV[2])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. cutoff)
elseif ARGV[1] ~= 'read' then
  return redis.error_reply('members: unknown op ' .. tostring(ARGV[1]))
end
return {now, redis.call('ZRANGEBYSCORE', key, cutoff, '+inf', 'WITHSCORES')}
