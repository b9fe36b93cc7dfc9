-- The live scanner nodes of each region (scanner-registry.ts), lapsed ones dropped.
-- KEYS: each region's scanners. Replies the live nodes of each.
--- @include "now-ms"
local counts = {}
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  counts[i] = redis.call('ZCARD', key)
end
return counts
