-- A scanner node's heartbeat (scanner-registry.ts), scored with when it
-- lapses on Redis's clock.
-- KEYS: the region's scanners, the regions set. ARGV: node id, region, lapse ms.
--- @include "now-ms"
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return 1
