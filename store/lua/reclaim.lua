-- Take over entries idle in the pending lists of consumers that are gone (or stuck),
-- with their delivery counts, in one round trip per stream. KEYS[1]: an input stream.
-- ARGV: group, consumer, min idle ms, count, stuck ms, then the names of live consumers.
-- Returns {{{entry id, {field, value, ...}, times delivered}, ...},
--          {id of an entry deleted from the stream while pending, ...}}.
--
-- An entry pending on a live consumer is left to it unless idle `stuck ms`: a worker
-- that is slow (a backlog, a busy machine) is not robbed, so its entries are not
-- delivered again and again towards the delivery limit. Its own entries (a batch that
-- failed) and those of consumers not named live (dead: no heartbeat) are taken.
-- An entry deleted from the stream while pending (XDEL, a trim) has nothing to apply:
-- Redis 6.2 keeps it pending and XCLAIM returns it as nil; Redis 7 drops it. Either way
-- it is acked here and its id returned, for the caller to report.
local live = {}
for i = 6, #ARGV do live[ARGV[i]] = true end
local stuck = tonumber(ARGV[5])
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], 'IDLE', ARGV[3], '-', '+', ARGV[4])
local out = {}
local deleted = {}
for _, item in ipairs(pending) do
  local id, owner, idle, count = item[1], item[2], item[3], item[4]
  if owner == ARGV[2] or not live[owner] or idle >= stuck then
    local claimed = redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], id)
    if claimed[1] then
      out[#out + 1] = {claimed[1][1], claimed[1][2], count + 1}
    elseif #redis.call('XRANGE', KEYS[1], id, id) == 0 then
      redis.call('XACK', KEYS[1], ARGV[1], id)
      deleted[#deleted + 1] = id
    end
    -- else: another reclaimer took it first (no longer idle): leave it.
  end
end
return {out, deleted}
