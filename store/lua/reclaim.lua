-- Take over entries idle in other consumers' pending lists, with their delivery counts,
-- in one round trip per stream. KEYS[1]: an input stream.
-- ARGV: group, consumer, min idle ms, start id, count.
-- Returns {next start id, {{entry id, {field, value, ...}, times delivered}, ...}}.
--
-- Redis 6.2 claims an entry that was deleted from the stream while pending (XDEL, a
-- trim) but returns it as nil, without its id, and leaves it pending for ever: it would
-- hold the expiry watermark back and be claimed again on every pass. Such entries are
-- found here by their absence from the stream and acked (there is nothing to apply).
-- Redis 7 drops them from the pending list itself and lists them apart.
local reply = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4],
  'COUNT', ARGV[5])
local out = {}
local gone = 0
for _, entry in ipairs(reply[2]) do
  if entry then
    local pending = redis.call('XPENDING', KEYS[1], ARGV[1], entry[1], entry[1], 1)
    local delivered = 1
    if pending[1] then delivered = pending[1][4] end
    out[#out + 1] = {entry[1], entry[2], delivered}
  else
    gone = gone + 1
  end
end
if gone > 0 then
  local mine = redis.call('XPENDING', KEYS[1], ARGV[1], '-', '+', 10000, ARGV[2])
  for _, item in ipairs(mine) do
    if #redis.call('XRANGE', KEYS[1], item[1], item[1]) == 0 then
      redis.call('XACK', KEYS[1], ARGV[1], item[1])
    end
  end
end
return {reply[1], out}
