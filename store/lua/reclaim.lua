-- Take over entries idle in other consumers' pending lists, with their delivery counts,
-- in one round trip per stream. KEYS[1]: an input stream.
-- ARGV: group, consumer, min idle ms, start id, count.
-- Returns {next start id, {{entry id, {field, value, ...}, times delivered}, ...},
--          {id of an entry deleted from the stream while pending, ...}}.
--
-- An entry deleted from the stream while pending (XDEL, a trim) has nothing to apply.
-- Redis 7 drops it from the pending list itself and lists its id apart (reply[3]).
-- Redis 6.2 claims it but returns it as nil, without its id, and would leave it pending
-- for ever (holding the watermark back, claimed again on every pass): such entries are
-- found here by their absence from the stream and acked. Either way their ids are
-- returned, for the caller to report.
local reply = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4],
  'COUNT', ARGV[5])
local out = {}
local deleted = {}
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
      deleted[#deleted + 1] = item[1]
    end
  end
end
for _, id in ipairs(reply[3] or {}) do
  deleted[#deleted + 1] = id
end
return {reply[1], out, deleted}
