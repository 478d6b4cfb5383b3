-- accord gateway append: allocate a session's next seq and XADD its input entry, atomically.
--
-- KEYS[1] gateway-seq:{p}:<session>   string, the last seq allocated (INCR)
-- KEYS[2] gateway-idem:{p}:<session>  hash, recent idempotency keys (see below)
-- KEYS[3] chat-turn:{p} | tool-call:{p} | tool-result:{p}, the input stream
-- KEYS[4] layout:{p}                  string, the partition count p belongs to, or
--         'moving' while `accord repartition` moves it; absent before any repartition
-- ARGV[1] idempotency key, `<type>:<message_id or call_id>`
-- ARGV[2] the event's JSON object without `seq`, starting with '{'
-- ARGV[3] how many recent keys to remember per session (>= 1)
-- ARGV[4] seconds the remembered keys live after the session's last append (0: forever)
-- ARGV[5] '1': the caller WAITs for replicas after this call (the durability
--         setting), so a repeated key is written again, unchanged: the WAIT counts this
--         connection's writes, and must cover the first append, made on another one;
--         '0' otherwise
-- ARGV[6] the partition count the caller hashed the scope with (decimal)
-- Reply: {seq, entry id, 1 if this key was appended before (nothing written), else 0}
--
-- All keys carry the partition's hash tag {p}: one slot, so this runs on Redis Cluster.
-- Every check runs before the first write (a Lua error does not roll back), so a
-- failed call never consumes a seq: the session's seqs stay 1, 2, 3, ... with no gap.
-- First the layout: a caller with another partition count (or any caller during a move)
-- writes nothing here, not even a repeated key's answer, which may have moved with its
-- session: `ACCORDLAYOUT <count or moving>`, and the client learns the count and retries.
local layout = redis.call('GET', KEYS[4])
if layout and layout ~= ARGV[6] then
  return redis.error_reply('ACCORDLAYOUT ' .. layout)
end
local known = redis.call('HGET', KEYS[2], 'i:' .. ARGV[1])
if known then
  if ARGV[5] == '1' then redis.call('HSET', KEYS[2], 'i:' .. ARGV[1], known) end
  local space = string.find(known, ' ', 1, true)
  return {tonumber(string.sub(known, 1, space - 1)), string.sub(known, space + 1), 1}
end
local kind = redis.call('TYPE', KEYS[3])['ok']
if kind ~= 'none' and kind ~= 'stream' then
  return redis.error_reply('WRONGTYPE ' .. KEYS[3] .. ' is a ' .. kind .. ', not a stream')
end
if string.sub(ARGV[2], 1, 1) ~= '{' or string.sub(ARGV[2], 2, 2) == '}' then
  return redis.error_reply('ERR the event must be a non-empty JSON object')
end
local seq = redis.call('INCR', KEYS[1])
local text = string.format('%d', seq)
local data = '{"seq":' .. text .. ',' .. string.sub(ARGV[2], 2)
local id = redis.call('XADD', KEYS[3], '*', '__data__', data)
redis.call('HSET', KEYS[2], 'i:' .. ARGV[1], text .. ' ' .. id, 'o:' .. text, ARGV[1])
-- Forget the key appended `window` seqs ago: a retry comes seconds later, not a window.
local window = tonumber(ARGV[3])
if seq > window then
  local old_seq = string.format('%d', seq - window)
  local old = redis.call('HGET', KEYS[2], 'o:' .. old_seq)
  if old then redis.call('HDEL', KEYS[2], 'o:' .. old_seq, 'i:' .. old) end
end
local ttl = tonumber(ARGV[4])
if ttl > 0 then redis.call('EXPIRE', KEYS[2], ttl) end
return {seq, id, 0}
