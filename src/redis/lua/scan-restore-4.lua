-- Writes a started scan again, on a primary that may have lost it: a
-- failover before a replica held the start (replica-wait.ts). Keys and
-- arguments as scan-start.lua's first four and six, no limit charged again.
-- Replies `kept` when the scan's state is there (the start survived),
-- `superseded` when another scan of (ip, scan type) is in flight now (a
-- caller started it in the failover's moments), else `restored`.
if redis.call('EXISTS', KEYS[4]) == 1 then return 'kept' end
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 'superseded' end
--- @include "scan-record"
return 'restored'
