// GCRA, the in-memory limit store and its copy in lmdb (a real one in a
// temporary dir), with an injected clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { open } from 'lmdb';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';

import { gcra } from '../../src/limits/rate/gcra.js';
import { MemoryRateLimitStore } from '../../src/limits/rate/rate-limit-store.js';
import { LmdbRateLimitStore } from '../../src/lmdb/lmdb-rate-limit-store.js';

const T0 = Date.UTC(2026, 10, 21);

describe('gcra', () => {
  it('lets max requests through at once, then one per window/max', () => {
    const rule = { max: 30, windowSeconds: 60 };
    let tat: number | undefined;
    for (let i = 0; i < 30; i++) {
      const { decision, tatMs } = gcra(tat, rule, T0);
      expect(decision).toMatchObject({ allowed: true, limit: 30, remaining: 29 - i });
      tat = tatMs;
    }
    const refused = gcra(tat, rule, T0);
    expect(refused.decision).toMatchObject({ allowed: false, remaining: 0, retryAfter: 2, resetAt: (T0 + 60_000) / 1000 });
    expect(refused.tatMs).toBe(tat); // a refusal costs nothing
    expect(gcra(tat, rule, T0 + 1999).decision.allowed).toBe(false);
    expect(gcra(tat, rule, T0 + 2000).decision).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('never lets 2 x max through around a window boundary', () => {
    const rule = { max: 10, windowSeconds: 60 };
    let tat: number | undefined;
    let allowed = 0;
    // 10 at the end of one minute, then as many as possible at the start of the next.
    for (const at of [...Array(10).fill(T0 + 59_000), ...Array(20).fill(T0 + 61_000)]) {
      const { decision, tatMs } = gcra(tat, rule, at);
      if (decision.allowed) allowed++;
      tat = tatMs;
    }
    expect(allowed).toBe(10);
  });

  it('answers one deep scan per 5 minutes with the right Retry-After', () => {
    const rule = { max: 1, windowSeconds: 300 };
    const first = gcra(undefined, rule, T0);
    expect(first.decision).toMatchObject({ allowed: true, remaining: 0, resetAt: T0 / 1000 + 300 });
    expect(gcra(first.tatMs, rule, T0 + 100_000).decision).toMatchObject({ allowed: false, retryAfter: 200 });
    expect(gcra(first.tatMs, rule, T0 + 300_000).decision.allowed).toBe(true);
  });
});

describe('MemoryRateLimitStore', () => {
  it('charges all keys or none', async () => {
    const store = new MemoryRateLimitStore();
    const perIp = { key: 'deep|ip', rule: { max: 1, windowSeconds: 300 } };
    const perAsn = { key: 'deep|AS1', rule: { max: 2, windowSeconds: 3600 } };
    expect((await store.charge([perIp, perAsn], T0)).map((d) => d.allowed)).toEqual([true, true]);
    // The per-IP limit refuses: the ASN allowance must not be spent.
    expect((await store.charge([perIp, perAsn], T0 + 1000)).map((d) => d.allowed)).toEqual([false, true]);
    const other = { key: 'deep|other-ip', rule: perIp.rule };
    expect((await store.charge([other, perAsn], T0 + 2000)).map((d) => d.allowed)).toEqual([true, true]);
    expect((await store.charge([{ ...other, key: 'deep|third' }, perAsn], T0 + 3000))[1]!.allowed).toBe(false);
  });
});

describe('LmdbRateLimitStore', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const logger = pino({ level: 'silent' });
  const deep = { key: 'deep|2001:db8:5:6::/64', rule: { max: 1, windowSeconds: 300 } };
  const edge = { key: 'edge|198.51.100.7', rule: { max: 3, windowSeconds: 60 } };

  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'selfscan-limits-'));
    dirs.push(dir);
    return dir;
  }

  async function keysOnDisk(dir: string): Promise<string[]> {
    const db = open<number, string>({ path: join(dir, 'rate-limits.lmdb'), readOnly: true });
    const keys = [...db.getKeys()];
    await db.close();
    return keys;
  }

  it('remembers every charge across a reopen of the same data dir', async () => {
    const dir = dataDir();
    const first = await LmdbRateLimitStore.open(dir, logger);
    expect((await first.charge([deep], T0))[0]!.allowed).toBe(true);
    for (let i = 0; i < 3; i++) await first.charge([edge], T0);
    await first.close();

    const second = await LmdbRateLimitStore.open(dir, logger);
    expect((await second.charge([edge], T0 + 1000))[0]!.allowed).toBe(false);
    expect((await second.charge([deep], T0 + 100_000))[0]).toMatchObject({ allowed: false, retryAfter: 200 });
    expect((await second.charge([deep], T0 + 300_000))[0]!.allowed).toBe(true);
    await second.close();
  });

  it('writes behind while open, so a process that dies keeps what was written', async () => {
    const dir = dataDir();
    const store = await LmdbRateLimitStore.open(dir, logger);
    await store.charge([deep], T0);
    // Not closed: the write-behind alone must reach the disk.
    for (let tries = 0; !(await keysOnDisk(dir)).includes(deep.key); tries++) {
      expect(tries).toBeLessThan(100);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await store.close();
  });

  it('drops keys whose allowance is whole again, from disk too', async () => {
    const dir = dataDir();
    const first = await LmdbRateLimitStore.open(dir, logger);
    await first.charge([deep, edge], T0);
    await first.close();
    expect((await keysOnDisk(dir)).sort()).toEqual([deep.key, edge.key].sort());

    const second = await LmdbRateLimitStore.open(dir, logger);
    const other = { key: 'edge|198.51.100.8', rule: edge.rule };
    await second.charge([other], T0 + 301_000); // both old allowances are whole again: swept
    await second.close();
    expect(await keysOnDisk(dir)).toEqual([other.key]);
  });
});
