// One contract for every ResultStore adapter: lmdb (the single process, in
// a temp dir) and Redis (the cluster, on a redis-server of this file's
// own). Each must keep a record exactly as written, by (ip, scan type),
// replace it on the next write, list what is still queued or running, and
// lose a record once its expiresAt has passed and the sweep ran (Redis
// expires it itself; its sweep has nothing left to do).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { openLmdbStore } from '../../src/lmdb/lmdb-store.js';
import type { ScanRecord } from '../../src/model/scan-record.js';
import { RedisResultStore } from '../../src/redis/redis-result-store.js';
import type { ResultStore } from '../../src/scan/result-store.js';
import { redisPerFile } from '../helpers/redis-per-file.js';
import { completeRecord, queuedRecord } from '../helpers/scan-records.js';

const redis = redisPerFile();
const dirs: string[] = [];
const opened: ResultStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every adapter, each test with a store of its own (Redis: its own addresses, as keys are shared). */
const ADAPTERS: [string, () => Promise<ResultStore>][] = [
  [
    'lmdb',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'selfscan-contract-'));
      dirs.push(dir);
      const store = await openLmdbStore(dir);
      opened.push(store);
      return store;
    },
  ],
  ['redis', async () => new RedisResultStore(redis())],
];

let nextHost = 1;
/** An address no other test of this file uses. */
const freshIp = (): string => `198.51.100.${nextHost++}`;

const finished = (ip: string, changes: Partial<ScanRecord> = {}): ScanRecord => completeRecord(ip, 'deep', changes);

describe.each(ADAPTERS)('ResultStore contract: %s', (_, open) => {
  it('keeps a record exactly as written, by ip and scan type', async () => {
    const store = await open();
    const ip = freshIp();
    const record = finished(ip);
    await store.put(record);
    expect(await store.get(ip, 'deep')).toStrictEqual(record);
    expect(await store.get(ip, 'fast')).toBeNull();
    expect(await store.get(freshIp(), 'deep')).toBeNull();
    const v6 = finished('2001:db8::5');
    await store.put(v6);
    expect(await store.get('2001:db8::5', 'deep')).toStrictEqual(v6);
  });

  it('keeps a queued record of nulls and empty lists exactly', async () => {
    const store = await open();
    const record = queuedRecord(freshIp(), 'fast');
    await store.put(record);
    expect(await store.get(record.ip, 'fast')).toStrictEqual(record);
  });

  it('replaces a record with the next one written for the same ip and type', async () => {
    const store = await open();
    const ip = freshIp();
    await store.put(queuedRecord(ip, 'deep'));
    const final = finished(ip);
    await store.put(final);
    expect(await store.get(ip, 'deep')).toStrictEqual(final);
  });

  it('lists what is queued or running, and stops once it is final', async () => {
    const store = await open();
    const [queued, running, failed] = [freshIp(), freshIp(), freshIp()];
    await store.put(queuedRecord(queued));
    await store.put(queuedRecord(running, 'fast', { status: 'running', startedAt: Date.now() }));
    await store.put(queuedRecord(failed, 'fast', { status: 'failed', failReason: 'interrupted', expiresAt: Date.now() + 60_000 }));
    const mine = async () => (await store.unfinished()).map((r) => r.ip).filter((ip) => [queued, running, failed].includes(ip));
    expect((await mine()).sort()).toEqual([queued, running].sort());
    await store.put(finished(queued, { scanType: 'fast' }));
    expect(await mine()).toEqual([running]);
  });

  it('loses a record once its expiresAt has passed and the sweep ran, and keeps the others', async () => {
    const store = await open();
    const [brief, lasting] = [freshIp(), freshIp()];
    await store.put(finished(brief, { expiresAt: Date.now() + 200 }));
    await store.put(finished(lasting));
    await new Promise((resolve) => setTimeout(resolve, 300));
    await store.deleteExpired(Date.now());
    expect(await store.get(brief, 'deep')).toBeNull();
    expect(await store.get(lasting, 'deep')).not.toBeNull();
  });
});
