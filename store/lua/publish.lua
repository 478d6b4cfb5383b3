-- Publish what durable commits held back: move the oldest entries of `outbox:{p}` to
-- the output streams (docs/store.md, "The outbox").
--
-- With the durability setting on (StoreConfig.wait_replicas), commit.lua writes a
-- commit's agreement events and dead letters to the outbox instead of the streams
-- subscribers read, and the worker runs this only after replicas acknowledged that
-- commit (WAIT): an event a subscriber reads has survived a failover. A failover that
-- loses this script's writes leaves the outbox entries on the new primary, and the next
-- run publishes them again, with the same event ids (subscribers drop those).
--
-- KEYS[1] outbox:{p}            stream, fields t (e: an event, d: a dead letter), __data__
-- KEYS[2] agreement-events:{p}  stream
-- KEYS[3] dead-letters:{p}      stream
-- KEYS[4] lease:{p}             hash, the partition's lease (store/ownership.py)
-- ARGV[1] the publishing worker's owner token ('' : unfenced)
-- ARGV[2] approximate MAXLEN of the events stream (0 keeps all)
-- ARGV[3] the same for the dead letters
-- ARGV[4] how many outbox entries to move at most
-- Reply: {entries the outbox still holds, entries moved now}.
if ARGV[1] ~= '' then
  -- A worker whose lease was taken over moves nothing: the new owner publishes.
  local owner = redis.call('HGET', KEYS[4], 'o') or ''
  if owner ~= ARGV[1] then
    if owner == '' then owner = 'nobody' end
    return redis.error_reply('FENCED the lease is held by ' .. owner .. ', not ' .. ARGV[1])
  end
end

local function xadd(key, maxlen, data)
  if maxlen > 0 then
    redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', '__data__', data)
  else
    redis.call('XADD', key, '*', '__data__', data)
  end
end

local targets = {
  e = {KEYS[2], tonumber(ARGV[2])},
  d = {KEYS[3], tonumber(ARGV[3])},
}
local moved = {}
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', tonumber(ARGV[4]))) do
  local fields = {}
  for i = 1, #entry[2], 2 do fields[entry[2][i]] = entry[2][i + 1] end
  local target = targets[fields.t]
  -- Only commit.lua writes the outbox: an entry of another shape is left where it is,
  -- visible to `accord status`, rather than published somewhere or dropped.
  if target and fields.__data__ then
    xadd(target[1], target[2], fields.__data__)
    moved[#moved + 1] = entry[1]
  end
end
-- ARGV[4] stays far below Lua's unpack bound (the worker sends a few hundred).
if #moved > 0 then redis.call('XDEL', KEYS[1], unpack(moved)) end
return {redis.call('XLEN', KEYS[1]), #moved}
