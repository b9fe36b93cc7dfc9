-- Ends a scan once (redis-scan-progress.ts): its final record stored with
-- its expiry, the in-flight mark cleared, the end published.
-- KEYS: scan state, chunks, record, unfinished set, in-flight mark. ARGV:
-- scan id, channel, final record JSON, its expiry (Unix ms), final body
-- JSON, lifetime ms. Replies 0 when it had ended already, or is unknown,
-- or a newer scan of its (ip, scan type) holds the record.
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'ended') then return 0 end
local stored = redis.call('GET', KEYS[3])
if stored and cjson.decode(stored).id ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'ended', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('SET', KEYS[3], ARGV[3], 'PXAT', ARGV[4])
redis.call('SREM', KEYS[4], KEYS[3])
if redis.call('GET', KEYS[5]) == ARGV[1] then redis.call('DEL', KEYS[5]) end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[2], '{"scanId":"' .. ARGV[1] .. '","seq":' .. seq .. ',"kind":"end","body":' .. ARGV[5] .. '}')
return seq
