-- Read the state of many scopes and sessions of one partition in one round trip.
-- KEYS: the keys to read. ARGV[i]: what KEYS[i] is, which says what to read:
--   "scope"   -> HMGET v s
--   "session" -> HMGET n v c k g
--   "parked"  -> HGETALL (a flat field/value list; empty when nothing is parked)
-- Returns one reply per key, in order. Read-only.
local out = {}
for i, key in ipairs(KEYS) do
  local kind = ARGV[i]
  if kind == 'scope' then
    out[i] = redis.call('HMGET', key, 'v', 's')
  elseif kind == 'session' then
    out[i] = redis.call('HMGET', key, 'n', 'v', 'c', 'k', 'g')
  elseif kind == 'parked' then
    out[i] = redis.call('HGETALL', key)
  else
    return redis.error_reply('load: unknown kind ' .. tostring(kind))
  end
end
return out
