-- What a poll needs, in one round trip (redis-scan-progress.ts).
-- KEYS: in-flight mark, record. ARGV: the scan state keys' prefix. Replies
-- the record, and for a scan in flight its id, status, start and chunks
-- complete.
local id = redis.call('GET', KEYS[1])
local record = redis.call('GET', KEYS[2])
if not id then return { record } end
local state = redis.call('HMGET', ARGV[1] .. id, 'status', 'startedAt', 'complete', 'ended')
return { record, id, state[1], state[2], state[3], state[4] }
