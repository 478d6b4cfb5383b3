-- Fill the records or scopes index of one partition from keys written before it existed
-- (store/reindex.py, `accord reindex`): each entry is added only if the index does not
-- hold it yet, inside this one script, so an entry a commit indexed (with its exact time,
-- before or while the run reads) is never moved. All KEYS share the tag {p}.
-- ARGV[1]: 'r' (records) or 's' (scopes); ARGV[2]: '1' to count only (a dry run).
-- Returns how many entries were (or, dry, would be) added.
local dry = ARGV[2] == '1'
local added = 0

if ARGV[1] == 'r' then
  -- KEYS: records:{p}, records:{p}:ttl, one state set per state, then the record keys.
  -- ARGV[3]: how many state sets; ARGV[4..]: their states in KEYS order; then per record
  -- (in record-key order): member, state, score (Redis ms).
  local states = tonumber(ARGV[3])
  local set_of = {}
  for i = 1, states do set_of[ARGV[3 + i]] = KEYS[2 + i] end
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local first = 4 + states
  for i = 0, (#ARGV - first + 1) / 3 - 1 do
    local member, state, score = ARGV[first + 3 * i], ARGV[first + 3 * i + 1], ARGV[first + 3 * i + 2]
    local key = KEYS[3 + states + i]
    local ttl = redis.call('PTTL', key)
    -- (-2: the key is gone since it was read; a record never comes back.)
    if ttl ~= -2 and not redis.call('ZSCORE', KEYS[1], member) and set_of[state] then
      added = added + 1
      if not dry then
        redis.call('ZADD', KEYS[1], score, member)
        redis.call('ZADD', set_of[state], score, member)
        if ttl > 0 then redis.call('ZADD', KEYS[2], now + ttl, member) end
      end
    end
  end
  return added
end

-- Scopes. KEYS: scopes:{p}, scopes:{p}:open, scopes:{p}:ttl, records:{p}.
-- ARGV[3]: the record retention (ms, 0: off); then per scope: member, open ('1'/'0'),
-- keeps no record ('1'/'0'), n, and the n members of its records (kept and closed). Its
-- score is the newest its records have in the records index (filled first); a scope none
-- of whose records is indexed is left out.
local retention = tonumber(ARGV[3])
local i = 4
while i <= #ARGV do
  local member, open, idle, n = ARGV[i], ARGV[i + 1] == '1', ARGV[i + 2] == '1', tonumber(ARGV[i + 3])
  local best
  for j = i + 4, i + 3 + n do
    local score = redis.call('ZSCORE', KEYS[4], ARGV[j])
    if score and (not best or tonumber(score) > best) then best = tonumber(score) end
  end
  -- (A dry run has added no record to read a score from: it counts what the index lacks.)
  if (best or dry) and not redis.call('ZSCORE', KEYS[1], member) then
    added = added + 1
    if not dry then
      redis.call('ZADD', KEYS[1], best, member)
      if open then redis.call('ZADD', KEYS[2], best, member) end
      if idle and retention > 0 then redis.call('ZADD', KEYS[3], best + retention, member) end
    end
  end
  i = i + 4 + n
end
return added
