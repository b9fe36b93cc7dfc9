-- A queued scan becomes running (redis-scan-progress.ts); 1 when it did.
-- KEYS: scan state. ARGV: scan id, channel.
if redis.call('HGET', KEYS[1], 'status') ~= 'queued' or redis.call('HGET', KEYS[1], 'ended') then return 0 end
--- @include "now-ms"
redis.call('HSET', KEYS[1], 'status', 'running', 'startedAt', now)
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[2], '{"scanId":"' .. ARGV[1] .. '","seq":' .. seq .. ',"kind":"running","startedAt":' .. now .. '}')
return 1
