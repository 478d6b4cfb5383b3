-- The atomic commit of one batch of one partition (all KEYS share the tag {p}).
--
-- KEYS: every key the plan names, by index. ARGV[1]: the plan, msgpack (store/processor.py);
-- ARGV[2..]: the binary values it names by index (Redis's cmsgpack reads no bin type).
-- A Lua error does not roll back earlier writes, so every check of a unit runs before
-- its first write: a unit whose scope version or any session version moved since the
-- load is skipped entirely and its index returned, for the processor to reload and retry.
-- Units touch disjoint scopes and sessions, so one unit's writes never invalidate
-- another unit's checks.
--
-- Plan (values marked # are ARGV indices):
--       {g=group, ek=events idx, em=events maxlen, dk=dead-letters idx, dm=dl maxlen,
--        tk=stats idx, gk=gaps idx, xk=deadlines idx, u={unit...},
--        d={{stream idx, id, #dead-letter json}, ...} (undecodable etc.: whatever the units do)}
-- Versions are opaque tokens unique to the commit that wrote them (never counts: after
-- Redis loses acknowledged writes a count comes back with other content; a token does
-- not). '' stands for a key never written.
-- Unit: {sc=scope idx?, sv=expected scope version, sn=new scope version?,
--        ss=#new scope bytes?,
--        se={{k=idx, v=expected, nv=new version (absent: check only, write nothing),
--             n=next seq, c=#core bytes?, kk=skipped?, pk=parked idx,
--             ps={seq, #bytes, ...}, pd={seq, ...}, gm=gaps member?, gs=oldest parked ms?,
--             go=1 when the gap waited for moved (observed anew)?}},
--        r={record idx, #json, ...}, xr={member, ...}, xa={ms, member, ...},
--        ev={#event json, ...}, a={stream idx, id, ...} (applied, parked, duplicates),
--        vk=view hash idx?, vd=#view document json? (session entries with nv also carry
--        af=the view field of their applied seq, written as n - 1),
--        d={{stream idx, id, #dead-letter json}, ...} (late after a gap skip),
--        nk=gaps skipped, nq=seqs skipped}
local plan = cmsgpack.unpack(ARGV[1])
local failed = {}

local function version(key)
  return redis.call('HGET', key, 'v') or ''
end

local function unit_ok(unit)
  if unit.sc and version(KEYS[unit.sc]) ~= unit.sv then
    return false
  end
  for _, s in ipairs(unit.se or {}) do
    if version(KEYS[s.k]) ~= s.v then
      return false
    end
  end
  return true
end

local function xadd(key, maxlen, data)
  if maxlen > 0 then
    redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', '__data__', data)
  else
    redis.call('XADD', key, '*', '__data__', data)
  end
end

-- The passing units' acks, gathered per stream and sent as one XACK each at the end
-- (one call per entry was most of the script's cost per entry).
local acks = {}

local function gather_acks(pairs_list)
  local list = pairs_list or {}
  for i = 1, #list, 2 do
    local ids = acks[list[i]]
    if not ids then
      ids = {}
      acks[list[i]] = ids
    end
    ids[#ids + 1] = list[i + 1]
  end
end

local function flush_acks()
  for stream, ids in pairs(acks) do
    -- unpack is bounded by Lua's C stack: chunks of 1000 ids.
    for first = 1, #ids, 1000 do
      redis.call('XACK', KEYS[stream], plan.g, unpack(ids, first, math.min(first + 999, #ids)))
    end
  end
end

-- A dead letter is written only by the consumer whose XACK removed the entry from the
-- pending list, so a redelivered entry is dead-lettered once.
local function dead_letters(list)
  for _, d in ipairs(list or {}) do
    if redis.call('XACK', KEYS[d[1]], plan.g, d[2]) == 1 then
      xadd(KEYS[plan.dk], plan.dm, ARGV[d[3]])
      redis.call('HINCRBY', KEYS[plan.tk], 'dead_letters', 1)
    end
  end
end

-- Redis's clock, read once and only by a commit that observes a gap (effects
-- replication, the default since Redis 5, allows TIME before writes).
local now_ms
local function server_ms()
  if not now_ms then
    local t = redis.call('TIME')
    now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return now_ms
end

local function write_session(s)
  local key = KEYS[s.k]
  if s.c then
    redis.call('HSET', key, 'n', s.n, 'v', s.nv, 'c', ARGV[s.c])
  else
    redis.call('HSET', key, 'n', s.n, 'v', s.nv)
  end
  if s.kk then redis.call('HSET', key, 'k', s.kk) end
  local ps = s.ps or {}
  for i = 1, #ps, 2 do
    redis.call('HSET', KEYS[s.pk], ps[i], ARGV[ps[i + 1]])
  end
  local pd = s.pd or {}
  if #pd > 0 then redis.call('HDEL', KEYS[s.pk], unpack(pd)) end
  if s.gm then
    -- The session's `g`: when its current gap was observed, which the gap skipper
    -- measures the timeout from (kept while the same seq is waited for).
    if s.gs then
      redis.call('ZADD', KEYS[plan.gk], s.gs, s.gm)
      -- (HGET, not HSETNX: the ACL grants the worker only the commands it needs.)
      if s.go or not redis.call('HGET', key, 'g') then
        redis.call('HSET', key, 'g', server_ms())
      end
    else
      redis.call('ZREM', KEYS[plan.gk], s.gm)
      redis.call('HDEL', key, 'g')
    end
  end
end

-- The scope's language-neutral view (contracts/keys.py): its document when the records
-- changed, and each written session's applied seq, in one HSET.
local function write_view(unit)
  if not unit.vk then return end
  local fields = {}
  if unit.vd then
    fields[1] = 'doc'
    fields[2] = ARGV[unit.vd]
  end
  for _, s in ipairs(unit.se or {}) do
    if s.nv and s.af then
      fields[#fields + 1] = s.af
      fields[#fields + 1] = s.n - 1
    end
  end
  if #fields > 0 then redis.call('HSET', KEYS[unit.vk], unpack(fields)) end
end

local function write(unit)
  -- First: the one key outside the store's state, so a missing ACL grant (NOPERM)
  -- fails the unit before it has written anything.
  write_view(unit)
  if unit.sc and unit.ss then
    redis.call('HSET', KEYS[unit.sc], 'v', unit.sn, 's', ARGV[unit.ss])
  end
  for _, s in ipairs(unit.se or {}) do
    if s.nv then write_session(s) end
  end
  local r = unit.r or {}
  for i = 1, #r, 2 do
    redis.call('SET', KEYS[r[i]], ARGV[r[i + 1]])
  end
  local xr = unit.xr or {}
  if #xr > 0 then redis.call('ZREM', KEYS[plan.xk], unpack(xr)) end
  local xa = unit.xa or {}
  if #xa > 0 then redis.call('ZADD', KEYS[plan.xk], unpack(xa)) end
  for _, data in ipairs(unit.ev or {}) do
    xadd(KEYS[plan.ek], plan.em, ARGV[data])
  end
  gather_acks(unit.a)
  dead_letters(unit.d)
  if unit.nk and unit.nk > 0 then
    redis.call('HINCRBY', KEYS[plan.tk], 'gaps_skipped', unit.nk)
    redis.call('HINCRBY', KEYS[plan.tk], 'seqs_skipped', unit.nq)
  end
end

for index, unit in ipairs(plan.u or {}) do
  if unit_ok(unit) then
    write(unit)
  else
    failed[#failed + 1] = index - 1
  end
end

flush_acks()
dead_letters(plan.d)
return failed
