// Starting scans across API nodes, on a redis-server of the test's own: one
// scan per (ip, scan type) however many nodes start it at once, the scan
// limits charged all or none, and nothing recorded for a refused start.
import { describe, expect, it } from 'vitest';

import type { ScanRecord } from '../../src/model/scan-record.js';
import { inFlightKey, limitKey } from '../../src/redis/redis-keys.js';
import { RedisResultStore } from '../../src/redis/redis-result-store.js';
import { RedisScanProgress } from '../../src/redis/redis-scan-progress.js';
import { RedisScanStarts } from '../../src/redis/redis-scan-starts.js';
import { finalBody } from '../../src/scan/result-view.js';
import { redisPerFile } from '../helpers/redis-per-file.js';
import { queuedRecord as newRecord } from '../helpers/scan-records.js';

const connect = redisPerFile();

/** Ends `record`'s scan as every API node would: the final record stored, the in-flight mark cleared. */
async function end(record: ScanRecord): Promise<void> {
  const final: ScanRecord = { ...record, status: 'complete', completedAt: Date.now(), expiresAt: Date.now() + 60_000 };
  await new RedisScanProgress(connect()).end(final, finalBody(final));
}

const deepLimits = (ip: string) => [
  { key: `deep|${ip}`, rule: { max: 1, windowSeconds: 300 } },
  { key: 'deep|AS64500', rule: { max: 5, windowSeconds: 3600 } },
];

describe('RedisScanStarts', () => {
  it('makes one scan of 20 concurrent starts on two API nodes, charged once', async () => {
    const nodes = [new RedisScanStarts(connect()), new RedisScanStarts(connect())];
    const ip = '2001:db8::20';
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => nodes[i % 2]!.start(newRecord(ip, 'deep'), deepLimits(ip))));
    const started = outcomes.filter((o) => o.kind === 'started');
    expect(started).toHaveLength(1);
    const joined = outcomes.filter((o) => o.kind === 'joined');
    expect(joined).toHaveLength(19);
    const stored = await new RedisResultStore(connect()).get(ip, 'deep');
    expect(stored).toMatchObject({ ip, scanType: 'deep', status: 'queued' });
    expect(new Set(joined.map((o) => (o.kind === 'joined' ? o.scanId : '')))).toEqual(new Set([stored!.id]));
    expect((await new RedisResultStore(connect()).unfinished()).map((r) => r.id)).toContain(stored!.id);
  });

  it('refuses a start over a limit without charging the others or recording anything', async () => {
    const redis = connect();
    const starts = new RedisScanStarts(redis);
    const ip = '203.0.113.30';
    const first = newRecord(ip, 'deep');
    expect((await starts.start(first, deepLimits(ip))).kind).toBe('started');
    await end(first);
    const asnBefore = await redis.get(limitKey('deep|AS64500'));

    const second = newRecord(ip, 'deep');
    const refused = await starts.start(second, deepLimits(ip));
    expect(refused.kind).toBe('refused');
    if (refused.kind !== 'refused') return;
    expect(refused.decisions.map((d) => d.allowed)).toEqual([false, true]);
    expect(refused.decisions[0]!.retryAfter).toBeGreaterThanOrEqual(299);
    expect(await redis.get(limitKey('deep|AS64500'))).toBe(asnBefore);
    expect(await redis.exists(inFlightKey('deep', ip))).toBe(0);
    expect((await new RedisResultStore(redis).get(ip, 'deep'))!.id).toBe(first.id);
  });

  it('clears the in-flight mark only for the scan that holds it', async () => {
    const starts = new RedisScanStarts(connect());
    const ip = '203.0.113.31';
    const running = newRecord(ip, 'fast');
    expect((await starts.start(running, [])).kind).toBe('started');
    await end(newRecord(ip, 'fast')); // another, older scan's end
    expect(await starts.start(newRecord(ip, 'fast'), [])).toEqual({ kind: 'joined', scanId: running.id });
    expect(await new RedisResultStore(connect()).get(ip, 'fast')).toMatchObject({ id: running.id, status: 'queued' });
    await end(running);
    expect((await starts.start(newRecord(ip, 'fast'), [])).kind).toBe('started');
  });
});
