// One contract for every FingerprintStore adapter: lmdb (the single
// process, in a temp dir) and Redis (the cluster, on a redis-server of this
// file's own). Each must keep a fingerprint exactly as written, by (ip,
// scan type), replace it on the next write, and lose it once its time is
// past: reads at once, the sweep in lmdb, Redis itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import type { Fingerprint } from '../../src/exposure/fingerprint.js';
import type { FingerprintStore } from '../../src/exposure/fingerprint-store.js';
import { type LmdbFingerprints, openLmdbFingerprints } from '../../src/lmdb/lmdb-fingerprints.js';
import { systemClock } from '../../src/model/clock.js';
import { RedisFingerprints } from '../../src/redis/redis-fingerprints.js';
import { eventually } from '../helpers/eventually.js';
import { redisPerFile } from '../helpers/redis-per-file.js';

const redis = redisPerFile();
const dirs: string[] = [];
const opened: LmdbFingerprints[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const ADAPTERS: [string, () => Promise<FingerprintStore>][] = [
  [
    'lmdb',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'selfscan-fingerprints-'));
      dirs.push(dir);
      const store = await openLmdbFingerprints(dir, systemClock);
      opened.push(store);
      return store;
    },
  ],
  ['redis', async () => new RedisFingerprints(redis())],
];

let nextHost = 1;
const freshIp = (): string => `198.51.100.${nextHost++}`;

const fingerprint = (completedAt: number, ports: number[]): Fingerprint => ({
  completedAt,
  ports: ports.map((port) => ({ port, banner: port === 22 ? '0123456789abcdef' : null, cert: port === 443 ? 'ab'.repeat(32) : null, severity: 'info' })),
});
const DAY_MS = 24 * 60 * 60 * 1000;

describe.each(ADAPTERS)('FingerprintStore contract: %s', (_, open) => {
  it('keeps a fingerprint exactly as written, by ip and scan type', async () => {
    const store = await open();
    const ip = freshIp();
    const kept = fingerprint(Date.now(), [22, 443, 6379]);
    await store.put(ip, 'fast', kept, Date.now() + DAY_MS);
    expect(await store.get(ip, 'fast')).toStrictEqual(kept);
    expect(await store.get(ip, 'deep')).toBeNull();
    expect(await store.get(freshIp(), 'fast')).toBeNull();
    await store.put('2001:db8::7', 'deep', kept, Date.now() + DAY_MS);
    expect(await store.get('2001:db8::7', 'deep')).toStrictEqual(kept);
  });

  it('replaces the fingerprint of an address with the next one written', async () => {
    const store = await open();
    const ip = freshIp();
    await store.put(ip, 'fast', fingerprint(1_000, [22]), Date.now() + DAY_MS);
    const newer = fingerprint(2_000, [80]);
    await store.put(ip, 'fast', newer, Date.now() + DAY_MS);
    expect(await store.get(ip, 'fast')).toStrictEqual(newer);
  });

  it('loses a fingerprint once its time is past, and the sweep leaves none behind', async () => {
    const store = await open();
    const ip = freshIp();
    const lasting = freshIp();
    await store.put(ip, 'fast', fingerprint(Date.now(), [22]), Date.now() + 200);
    await store.put(lasting, 'fast', fingerprint(Date.now(), [80]), Date.now() + DAY_MS);
    await eventually(async () => (await store.get(ip, 'fast')) === null, 5000, 'the fingerprint past its time is gone');
    await store.deleteExpired(Date.now());
    expect(await store.get(lasting, 'fast')).not.toBeNull();
    expect(await store.deleteExpired(Date.now())).toBe(0);
  });
});
