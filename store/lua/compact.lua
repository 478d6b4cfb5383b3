-- Compact idle sessions of one partition to their ordering watermark (all KEYS share {p}).
--
-- KEYS[1]: the idle index `idle:{p}`; KEYS[2..n-1]: session hashes; KEYS[n]: the
-- partition's lease hash, whose commit mark a pass that compacts anything replaces with
-- its token (docs/store.md, "The commit mark": a worker's cache of these sessions is
-- then trusted no more).
-- ARGV[1]: the new version token; ARGV[2]: Redis time (ms) the caller read;
-- then per session (KEYS[i + 1]): the version the caller read ('' for none), its member
-- in the index, and '1' to compact it or '0' to keep its state (a kept record depends on
-- it).
-- A member whose hash is gone, lacks `v` or `n`, or holds another type is stale: it is
-- removed from the index (a later commit of the session adds it again), so it cannot
-- hold the head of the index and fail or starve every later pass. A session with a gap
-- open (`g`: entries parked) keeps its state and is scored anew. One is compacted only when it
-- has not committed since its score was set: the commit that scores it records the
-- version it wrote (`iv`), so a version other than `iv` means a commit that did not
-- score it (one made with session retention off, on this worker or another) and a
-- version other than the caller's read means a commit since that read. Such a session
-- is scored anew at `now` with `iv` set to its version: it is looked at again once it
-- has been idle for another retention.
-- One compacted loses its core state `c` and gets a new version (written anew, so it is
-- small again), so a worker's cached copy of it fails its next commit's check and is
-- reloaded; `n` and `k` stay, so every later input is still a duplicate, late, or
-- applied in order (R15). One kept is scored anew (checked again after another
-- retention). Every check runs before the first write, and every value a write uses
-- was read by a check, so no write can fail half way through.
-- Returns {compacted, kept (scored anew), stale (removed from the index)}.
local token, now = ARGV[1], ARGV[2]
local function caught(reply)
  if type(reply) == 'table' and reply.err then
    if string.sub(reply.err, 1, 9) ~= 'WRONGTYPE' then error(reply) end
    return true
  end
  return false
end
if caught(redis.pcall('ZRANGE', KEYS[1], 0, 0)) then
  return redis.error_reply('compact: WRONGTYPE ' .. KEYS[1] .. ' is not a zset')
end
local compact, rescore, stale = {}, {}, {}
for i = 2, #KEYS - 1 do
  local a = 3 + (i - 2) * 3
  local member = ARGV[a + 1]
  local reply = redis.pcall('HMGET', KEYS[i], 'v', 'g', 'n', 'k', 'iv')
  if caught(reply) or not reply[1] or not reply[3] then
    stale[#stale + 1] = member
  elseif reply[2] or reply[1] ~= ARGV[a] or reply[1] ~= reply[5] or ARGV[a + 2] ~= '1' then
    -- Not compacted: a gap is open, it committed since it was scored or read, or a kept
    -- record depends on its state. Scored at `now` with `iv` its version (set where
    -- it differs): idle from now on unless a commit moves the version again.
    rescore[#rescore + 1] = {KEYS[i], member, reply[1] ~= reply[5] and reply[1] or nil}
  else
    compact[#compact + 1] = {KEYS[i], member, reply[3], reply[4]}
  end
end
if #compact > 0 then
  -- First: a lease key of another type fails the pass here, before any write.
  redis.call('HSET', KEYS[#KEYS], 'm', token)
end
for _, p in ipairs(compact) do
  -- Emptied and written anew (Redis deletes a hash with its last field), so it is a
  -- small listpack again: a hash once converted to a hashtable never converts back.
  redis.call('HDEL', p[1], 'n', 'v', 'c', 'k', 'iv')
  redis.call('HSET', p[1], 'n', p[3], 'v', token)
  if p[4] then redis.call('HSET', p[1], 'k', p[4]) end
  redis.call('ZREM', KEYS[1], p[2])
end
for _, p in ipairs(rescore) do
  redis.call('ZADD', KEYS[1], now, p[2])
  if p[3] then redis.call('HSET', p[1], 'iv', p[3]) end
end
if #stale > 0 then redis.call('ZREM', KEYS[1], unpack(stale)) end
return {#compact, #rescore, #stale}
