-- Records what a chunk found, once however often its job is delivered
-- (redis-scan-progress.ts).
-- KEYS: scan state, chunks. ARGV: scan id, channel, chunk index, findings
-- JSON, lifetime ms, 1 when the chunk is complete. Replies the outcome,
-- chunks done and chunks in all.
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'ended') then return { 'ended', 0, 0 } end
local total = tonumber(redis.call('HGET', KEYS[1], 'total'))
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[4]) == 0 then
  return { 'duplicate', tonumber(redis.call('HGET', KEYS[1], 'done')), total }
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local done = redis.call('HINCRBY', KEYS[1], 'done', 1)
redis.call('HINCRBY', KEYS[1], 'complete', ARGV[6])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[2], '{"scanId":"' .. ARGV[1] .. '","seq":' .. seq .. ',"kind":"chunk","index":' .. ARGV[3] .. ',"chunk":' .. ARGV[4] .. '}')
return { 'recorded', done, total }
