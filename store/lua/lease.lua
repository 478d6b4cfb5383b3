-- One partition's lease (store/ownership.py). KEYS[1]: lease:{p}, a hash
-- {o = owner token "<epoch>:<consumer>" ('' when free), e = expiry (Redis ms), n = epoch}.
-- ARGV[1]: 'acquire' | 'renew' | 'release'; ARGV[2]: consumer; ARGV[3]: the caller's
-- token (renew, release); ARGV[4]: lease length, ms.
-- Time is Redis's (TIME), the same for every worker whatever their clocks say; effects
-- replication (the default since Redis 5) allows TIME before writes.
-- Returns {1, token, ms left} when the caller holds the lease afterwards, else
-- {0, current owner token, ms left on it}.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = KEYS[1]
local op = ARGV[1]
local owner = redis.call('HGET', key, 'o') or ''
local expires = tonumber(redis.call('HGET', key, 'e') or '0')
local length = tonumber(ARGV[4])
if op == 'acquire' then
  local layout = redis.call('HGET', key, 'p')
  if layout and layout ~= ARGV[5] then
    return {2, layout, 0}
  end
  if owner ~= '' and expires > now then
    return {0, owner, expires - now}
  end
  -- Free, released or expired: a new epoch, so the old owner's token never matches again.
  local epoch = redis.call('HINCRBY', key, 'n', 1)
  local token = epoch .. ':' .. ARGV[2]
  redis.call('HSET', key, 'o', token, 'e', now + length)
  return {1, token, length}
elseif op == 'renew' then
  -- Only the token's holder renews, even past expiry if nobody took it over meanwhile.
  if owner ~= ARGV[3] then
    return {0, owner, math.max(expires - now, 0)}
  end
  redis.call('HSET', key, 'e', now + length)
  return {1, owner, length}
elseif op == 'release' then
  if owner ~= ARGV[3] then
    return {0, owner, math.max(expires - now, 0)}
  end
  redis.call('HSET', key, 'o', '', 'e', 0)
  return {1, '', 0}
end
return redis.error_reply('lease: unknown op ' .. tostring(op))
