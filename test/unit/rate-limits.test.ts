// GCRA and the in-memory limit store, with an injected clock.
import { describe, expect, it } from 'vitest';

import { gcra } from '../../src/limits/gcra.js';
import { MemoryRateLimitStore } from '../../src/limits/rate-limit-store.js';

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
