-- Starts a scan or joins the one in flight (redis-scan-starts.ts).
-- KEYS: in-flight mark, record, unfinished set, scan state, then the limit
-- keys. ARGV: scan id, record JSON, region, chunks in all, queued at (ms),
-- scan state lifetime (ms), then window ms and max of each limit. Replies
-- `joined` and the scan id in flight, or `refused`/`started` and the GCRA
-- now/before list.
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
--- @include "scan-record"
table.insert(reply, 1, 'started')
return reply
