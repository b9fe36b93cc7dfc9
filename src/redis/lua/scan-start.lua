-- Starts a scan or joins the one in flight (redis-scan-starts.ts).
-- KEYS: in-flight mark, record, unfinished set, scan state, then the limit
-- keys. ARGV: scan id, record JSON, region, chunks in all, queued at (ms),
-- scan state lifetime (ms), then window ms and max of each limit. Replies
-- `joined` and the scan id in flight, or `refused`/`started` and the GCRA
-- now/before list. The scan's state starts at event 1 (scan:queued).
--- @include "gcra"
local current = redis.call('GET', KEYS[1])
if current then return { 'joined', current } end
local check = gcra_check(KEYS, 5, ARGV, 7)
local reply = gcra_reply(check)
if not check.allowed then
  table.insert(reply, 1, 'refused')
  return reply
end
gcra_commit(check)
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], KEYS[2])
redis.call('HSET', KEYS[4], 'region', ARGV[3], 'total', ARGV[4], 'queuedAt', ARGV[5], 'status', 'queued', 'done', 0, 'seq', 1)
redis.call('PEXPIRE', KEYS[4], ARGV[6])
table.insert(reply, 1, 'started')
return reply
