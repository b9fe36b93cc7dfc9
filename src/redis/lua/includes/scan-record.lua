-- Records a scan as queued and in flight (scan-start.lua, scan-restore-4.lua).
-- KEYS: in-flight mark, record, unfinished set, scan state. ARGV: scan id,
-- record JSON, region, chunks in all, queued at (ms), scan state lifetime
-- (ms). The scan's state starts at event 1 (scan:queued).
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], KEYS[2])
redis.call('HSET', KEYS[4], 'region', ARGV[3], 'total', ARGV[4], 'queuedAt', ARGV[5], 'status', 'queued', 'done', 0, 'seq', 1)
redis.call('PEXPIRE', KEYS[4], ARGV[6])
