-- The atomic commit of one batch of one partition (all KEYS share the tag {p}).
--
-- KEYS: every key the plan names, by index. ARGV[1]: the plan, msgpack; ARGV[2..]: the
-- binary values it names by index (Redis's cmsgpack reads no bin type). The plan's
-- fields, their short keys and what each means are the Structs of store/commit_plan.py
-- (`CommitPlan` read here as `plan`, `UnitPlan` as `unit`, `SessionWrite` as `s`); a
-- field the plan leaves out is nil here. tests/test_store_commit_plan.py checks that the
-- keys read here and the keys sent there are the same.
-- A Lua error does not roll back earlier writes, so everything that can fail is checked
-- before the first write: the shared keys' types at the start
-- (a failure there is an error reply and nothing is written), each unit's key types and
-- versions before its own writes. A unit whose scope version or any session version
-- moved since the load is skipped and returned, for the processor to reload and retry;
-- a unit whose keys hold another type is skipped and returned with the reason, for the
-- processor to isolate. Every variadic command goes out in chunks (Lua's unpack is
-- bounded by its C stack, about 8,000 values), so no size of a unit makes a write fail.
-- Units touch disjoint scopes and sessions, so one unit's writes never invalidate
-- another unit's checks.
-- Returns {{index of a unit whose versions moved, ...}, {index, reason, ...}, distrusted,
-- held} (0-based; distrusted 1 when a unit planned from the cache found the mark moved;
-- held: the entries the outbox holds after a durable commit, else 0).
-- A durable commit (`ob`, StoreConfig.wait_replicas) writes its agreement events and
-- dead letters to the outbox, not to the streams subscribers read: the worker moves
-- them there after replicas acknowledged the commit (store/lua/publish.lua).
-- Dead letters carry their reason as a 4th item, counted in stats as `dl:<reason>`.
local plan = cmsgpack.unpack(ARGV[1])
local failed = {}
local refused = {}

-- What an absent list reads as: one shared empty table, never written to (a fresh `{}`
-- per absent field was a table allocated per unit and session, most of them).
local NONE = {}

-- Chunks of this many values per variadic call: far below Lua's unpack bound.
local CHUNK = 1000

-- Partition ownership (store/ownership.py): a worker whose lease was taken over or
-- released writes nothing, checked before the first write. Its entries stay pending
-- for the partition's new owner.
-- The lease also holds the partition's commit mark (`m`): a token every commit replaces
-- before its first write. A unit planned from the committing worker's cache
-- (`t`) is written unchecked only while the mark is still the one that worker's last
-- commit wrote (`pm`): then nothing has committed the partition since, and Redis has not
-- lost that commit (a rollback of it would bring an older mark back), so what the
-- worker remembers is what Redis holds. Otherwise the unit is returned as moved and the
-- worker forgets everything it remembers (docs/store.md, "The commit mark").
-- Every commit, fenced or not (a manual ACCORD_SERVE_PARTITIONS worker), replaces it.
-- (A lease key of another type fails this read, so the call, before any write.)
local trusted = false
local lease = redis.call('HMGET', KEYS[plan.lk], 'o', 'm')
if plan.lt then
  local owner = lease[1] or ''
  if owner ~= plan.lt then
    if owner == '' then owner = 'nobody' end
    return redis.error_reply('FENCED the lease is held by ' .. owner .. ', not ' .. plan.lt)
  end
  trusted = plan.pm ~= nil and lease[2] == plan.pm
end
-- Whether a unit planned from the cache found the mark moved: the worker drops its cache.
local distrusted = 0

-- cmd(key, fixed..., values[first..last]) for every chunk of `values`, `step` values
-- forming one item (2 for field/value or score/member pairs).
local function chunked(cmd, key, fixed, values, step)
  local size = CHUNK * step
  for first = 1, #values, size do
    local last = math.min(first + size - 1, #values)
    if fixed then
      redis.call(cmd, key, fixed, unpack(values, first, last))
    else
      redis.call(cmd, key, unpack(values, first, last))
    end
  end
end

-- Whether `key` is absent or of the type `wanted`, asked with a read of that type (the
-- worker's ACL grants these reads, not TYPE): a key of another type answers WRONGTYPE.
local probes = {
  hash = {'HGET', 'v'},
  zset = {'ZRANGE', 0, 0},
  stream = {'XLEN'},
}

-- A WRONGTYPE error is the key's problem (returned); any other (NOPERM: a missing ACL
-- grant) is the deployment's, and is raised: every check runs before the first write.
local function caught(reply)
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 9) ~= 'WRONGTYPE' then error(reply) end
    return reply.err
  end
  return nil
end

local function kind_ok(key, wanted)
  local probe = probes[wanted]
  return caught(redis.pcall(probe[1], key, unpack(probe, 2))) == nil
end

-- The shared keys: a wrong type fails every unit, so the script stops here, before any
-- write, and the processor's call raises (nothing is acked). A missing consumer group
-- needs no check: XACK answers 0 then, it does not fail.
local function shared_ok()
  local shared = {{plan.ek, 'stream'}, {plan.dk, 'stream'}, {plan.tk, 'hash'},
    {plan.gk, 'zset'}, {plan.xk, 'zset'}}
  if plan.yk then shared[#shared + 1] = {plan.yk, 'zset'} end
  if plan.ob then shared[#shared + 1] = {plan.ob, 'stream'} end
  -- The records index is named only by a commit that writes a record.
  if plan.rk then
    shared[#shared + 1] = {plan.rk, 'zset'}
    local rs = plan.rs or NONE
    for i = 2, #rs, 2 do shared[#shared + 1] = {rs[i], 'zset'} end
    if plan.rx then shared[#shared + 1] = {plan.rx, 'zset'} end
  end
  -- The scopes index likewise, only by a commit that writes a scope's state.
  if plan.ck then
    shared[#shared + 1] = {plan.ck, 'zset'}
    shared[#shared + 1] = {plan.cq, 'zset'}
    if plan.cx then shared[#shared + 1] = {plan.cx, 'zset'} end
  end
  for _, k in ipairs(plan.ik or NONE) do
    shared[#shared + 1] = {k, 'stream'}
  end
  for _, s in ipairs(shared) do
    if not kind_ok(KEYS[s[1]], s[2]) then
      return 'WRONGTYPE ' .. KEYS[s[1]] .. ' is not a ' .. s[2]
    end
  end
  return nil
end

-- HGET v of a hash; a key of another type answers an error, caught, not raised.
local function version(key)
  local reply = redis.pcall('HGET', key, 'v')
  local err = caught(reply)
  if err then return nil, err end
  return reply or '', nil
end

-- nil when the unit can be written; 'moved' when a version changed since the load;
-- else the reason it can never be written as planned.
local function unit_check(unit)
  if unit.t then
    -- From the worker's cache: its versions and key types are the ones its own last
    -- commits wrote, as long as the mark says nothing else wrote since.
    if trusted then return nil end
    distrusted = 1
    return 'moved'
  end
  if unit.sc then
    local v, err = version(KEYS[unit.sc])
    if err then return KEYS[unit.sc] .. ': ' .. err end
    if v ~= unit.sv then return 'moved' end
  end
  for _, s in ipairs(unit.se or NONE) do
    local v, err = version(KEYS[s.k])
    if err then return KEYS[s.k] .. ': ' .. err end
    if v ~= s.v then return 'moved' end
    if s.pk and not kind_ok(KEYS[s.pk], 'hash') then
      return KEYS[s.pk] .. ': WRONGTYPE not a hash'
    end
  end
  if unit.vk and not kind_ok(KEYS[unit.vk], 'hash') then
    return KEYS[unit.vk] .. ': WRONGTYPE not a hash'
  end
  return nil
end

local function xadd(key, maxlen, data)
  if maxlen > 0 then
    redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', '__data__', data)
  else
    redis.call('XADD', key, '*', '__data__', data)
  end
end

-- An output entry (`kind` e: an agreement event, d: a dead letter): to its stream, or,
-- in a durable commit, to the outbox until replicas have the commit.
local function emit(kind, data)
  if plan.ob then
    redis.call('XADD', KEYS[plan.ob], '*', 't', kind, '__data__', data)
  elseif kind == 'e' then
    xadd(KEYS[plan.ek], plan.em, data)
  else
    xadd(KEYS[plan.dk], plan.dm, data)
  end
end

-- The passing units' acks, gathered per stream and sent as one XACK each at the end
-- (one call per entry was most of the script's cost per entry).
local acks = {}

local function gather_acks(pairs_list)
  local list = pairs_list or NONE
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
    chunked('XACK', KEYS[stream], plan.g, ids, 1)
  end
end

local function dead_letter(data, reason)
  emit('d', data)
  redis.call('HINCRBY', KEYS[plan.tk], 'dead_letters', 1)
  if reason then redis.call('HINCRBY', KEYS[plan.tk], 'dl:' .. reason, 1) end
end

-- A dead letter is written only by the consumer whose XACK removed the entry from the
-- pending list, so a redelivered entry is dead-lettered once.
local function dead_letters(list)
  for _, d in ipairs(list or NONE) do
    if redis.call('XACK', KEYS[d[1]], plan.g, d[2]) == 1 then
      dead_letter(ARGV[d[3]], d[4])
    end
  end
end

-- Redis's clock, read once and only by a commit that observes a gap, keeps the idle
-- index or writes a record (effects replication, the default since Redis 5, allows TIME before writes).
local now_ms
local function server_ms()
  if not now_ms then
    local t = redis.call('TIME')
    now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  end
  return now_ms
end

-- The records index (store/record_index.py, docs/store.md "The records index"): each
-- record written is scored by this commit's Redis time in `records:{p}` and in the set
-- of its state, and leaves the sets of the states it may have been indexed under before
-- (the other states of its history, named by the plan: none for a new record). A final
-- record written with the record retention's TTL is also scored with the instant its
-- key goes, for the retention pass to remove its members then. Only units that write
-- records come here: a chat turn that changes no record costs the index nothing.
local state_keys
local function index_records(unit)
  local ri = unit.ri or NONE
  if #ri == 0 then return end
  if not state_keys then
    state_keys = {}
    local rs = plan.rs or NONE
    for i = 1, #rs, 2 do state_keys[rs[i]] = KEYS[rs[i + 1]] end
  end
  local now = server_ms()
  -- `ri` lists the kept records (`r`) first, then the final ones (`rf`), three items each.
  local kept = #(unit.r or NONE) / 2
  for i = 1, #ri, 3 do
    local member, state, before = ri[i], ri[i + 1], ri[i + 2]
    redis.call('ZADD', KEYS[plan.rk], now, member)
    if state_keys[state] then redis.call('ZADD', state_keys[state], now, member) end
    for name in string.gmatch(before, '%S+') do
      if state_keys[name] then redis.call('ZREM', state_keys[name], member) end
    end
    if plan.rx and (i + 2) / 3 > kept then
      redis.call('ZADD', KEYS[plan.rx], now + plan.rt, member)
    end
  end
end

-- The scopes index (store/scope_index.py, docs/store.md "The scopes index"): a unit that
-- writes its scope's state scores the scope by this commit's Redis time, in the set of
-- scopes holding an open agreement or out of it, and (record retention on) with the
-- instant it leaves the index when it keeps no record, or not at all.
local function index_scope(unit)
  local member = unit.cm
  if not member then return end
  local now = server_ms()
  redis.call('ZADD', KEYS[plan.ck], now, member)
  if unit.co then
    redis.call('ZADD', KEYS[plan.cq], now, member)
  else
    redis.call('ZREM', KEYS[plan.cq], member)
  end
  if plan.cx then
    if unit.ce then
      redis.call('ZADD', KEYS[plan.cx], now + plan.rt, member)
    else
      redis.call('ZREM', KEYS[plan.cx], member)
    end
  end
end

local function write_session(s)
  local key = KEYS[s.k]
  if s.c then
    redis.call('HSET', key, 'n', s.n, 'v', plan.nm, 'c', ARGV[s.c])
  else
    redis.call('HSET', key, 'n', s.n, 'v', plan.nm)
  end
  if s.kk then redis.call('HSET', key, 'k', s.kk) end
  -- Session retention: when the session last committed, and the version that commit
  -- wrote (`iv`): compaction passes over a session whose version is not `iv`, moved by
  -- a commit that did not score it (retention off there). Nothing extra when off.
  if s.im then
    redis.call('ZADD', KEYS[plan.yk], server_ms(), s.im)
    redis.call('HSET', key, 'iv', plan.nm)
  end
  local ps = s.ps or NONE
  if #ps > 0 then
    local fields = {}
    for i = 1, #ps, 2 do
      fields[i] = ps[i]
      fields[i + 1] = ARGV[ps[i + 1]]
    end
    chunked('HSET', KEYS[s.pk], nil, fields, 2)
  end
  if s.pk then chunked('HDEL', KEYS[s.pk], nil, s.pd or NONE, 1) end
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
  for _, s in ipairs(unit.se or NONE) do
    if s.n and s.af then
      fields[#fields + 1] = s.af
      fields[#fields + 1] = s.n - 1
    end
  end
  chunked('HSET', KEYS[unit.vk], nil, fields, 2)
end

-- The partition's parked totals (store/parked_limits.py), kept by every commit that
-- parks or drains. At or below 0 the field goes (entries parked before they were
-- counted drain too), so a partition with nothing parked keeps no such field.
local function parked_count(field, delta)
  if redis.call('HINCRBY', KEYS[plan.tk], field, delta) <= 0 then
    redis.call('HDEL', KEYS[plan.tk], field)
  end
end

local function write(unit)
  -- First: the one key outside the store's state, so a missing ACL grant (NOPERM)
  -- fails the unit before it has written anything.
  write_view(unit)
  if unit.sc and unit.ss then
    redis.call('HSET', KEYS[unit.sc], 'v', plan.nm, 's', ARGV[unit.ss])
  end
  for _, s in ipairs(unit.se or NONE) do
    if s.n then write_session(s) end
  end
  local r = unit.r or NONE
  for i = 1, #r, 2 do
    redis.call('SET', KEYS[r[i]], ARGV[r[i + 1]])
  end
  -- Records that left the scope's state for good: kept for the record retention.
  local rf = unit.rf or NONE
  for i = 1, #rf, 2 do
    redis.call('SET', KEYS[rf[i]], ARGV[rf[i + 1]], 'PX', plan.rt)
  end
  index_records(unit)
  index_scope(unit)
  chunked('ZREM', KEYS[plan.xk], nil, unit.xr or NONE, 1)
  chunked('ZADD', KEYS[plan.xk], nil, unit.xa or NONE, 2)
  for _, data in ipairs(unit.ev or NONE) do
    emit('e', ARGV[data])
  end
  gather_acks(unit.a)
  dead_letters(unit.d)
  for _, data in ipairs(unit.dp or NONE) do
    dead_letter(ARGV[data], 'uncommittable')
  end
  if unit.pe then parked_count('parked_entries', unit.pe) end
  if unit.pb then parked_count('parked_bytes', unit.pb) end
  if unit.nk and unit.nk > 0 then
    redis.call('HINCRBY', KEYS[plan.tk], 'gaps_skipped', unit.nk)
    redis.call('HINCRBY', KEYS[plan.tk], 'seqs_skipped', unit.nq)
  end
end

-- The plain units (`p`, store/commit_plan.py `PlainLane`), flat: per unit {view key,
-- sessions m}, then m times {session key, next seq, applied field, #core or 0}; their
-- acks in `pa`. Each is written as `write` writes the same unit planned in full: its
-- view's applied seqs first, then each session's next seq, version and core state.
-- Planned from the cache, they rest on the mark alone: all written while it holds,
-- else all returned as moved (numbered on from `first`, after the plan's other units).
local function write_plain(first)
  local p = plan.p or NONE
  local i, index = 1, first
  while i <= #p do
    local last = i + 1 + 4 * p[i + 1]
    if trusted then
      local fields = {}
      for j = i + 2, last, 4 do
        fields[#fields + 1] = p[j + 2]
        fields[#fields + 1] = p[j + 1] - 1
      end
      chunked('HSET', KEYS[p[i]], nil, fields, 2)
      for j = i + 2, last, 4 do
        if p[j + 3] > 0 then
          redis.call('HSET', KEYS[p[j]], 'n', p[j + 1], 'v', plan.nm, 'c', ARGV[p[j + 3]])
        else
          redis.call('HSET', KEYS[p[j]], 'n', p[j + 1], 'v', plan.nm)
        end
      end
    else
      distrusted = 1
      failed[#failed + 1] = index
    end
    index = index + 1
    i = last + 1
  end
  if trusted then gather_acks(plan.pa) end
end

local shared_error = shared_ok()
if shared_error then
  return redis.error_reply('commit: ' .. shared_error)
end

-- The new mark, before any write: a script that stops half-way leaves a mark the worker
-- never saw, so it trusts nothing it remembers afterwards.
redis.call('HSET', KEYS[plan.lk], 'm', plan.nm)

-- Every unit is checked before any is written (units touch disjoint keys), so an error
-- raised by a check leaves nothing written.
local problems = {}
for index, unit in ipairs(plan.u or NONE) do
  problems[index] = unit_check(unit) or false
end

for index, unit in ipairs(plan.u or NONE) do
  local problem = problems[index]
  if not problem then
    write(unit)
  elseif problem == 'moved' then
    failed[#failed + 1] = index - 1
  else
    refused[#refused + 1] = index - 1
    refused[#refused + 1] = problem
  end
end

write_plain(#(plan.u or NONE))
flush_acks()
dead_letters(plan.d)
local held = 0
if plan.ob then held = redis.call('XLEN', KEYS[plan.ob]) end
return {failed, refused, distrusted, held}
