// The shared rate limits on a redis-server of the test's own: all or none,
// one allowance however many API nodes charge it, Redis's clock, and keys
// that vanish once their allowance is whole again.
import { describe, expect, it } from 'vitest';

import { limitKey } from '../../src/redis/redis-keys.js';
import { RedisRateLimitStore } from '../../src/redis/redis-rate-limit-store.js';
import { redisPerFile } from '../helpers/redis-per-file.js';

const client = redisPerFile();

const NOT_USED = 0; // the caller's clock: Redis's counts

describe('RedisRateLimitStore', () => {
  it('charges all keys or none', async () => {
    const store = new RedisRateLimitStore(client());
    const perIp = { key: 'deep|ip', rule: { max: 1, windowSeconds: 300 } };
    const perAsn = { key: 'deep|AS1', rule: { max: 2, windowSeconds: 3600 } };
    expect((await store.charge([perIp, perAsn], NOT_USED)).map((d) => d.allowed)).toEqual([true, true]);
    // The per-IP limit refuses: the ASN allowance must not be spent.
    const refused = await store.charge([perIp, perAsn], NOT_USED);
    expect(refused.map((d) => d.allowed)).toEqual([false, true]);
    expect(refused[0]).toMatchObject({ limit: 1, remaining: 0 });
    expect(refused[0]!.retryAfter).toBeGreaterThanOrEqual(299);
    expect(refused[0]!.retryAfter).toBeLessThanOrEqual(300);
    const other = { key: 'deep|other-ip', rule: perIp.rule };
    expect((await store.charge([other, perAsn], NOT_USED)).map((d) => d.allowed)).toEqual([true, true]);
    expect((await store.charge([{ ...other, key: 'deep|third' }, perAsn], NOT_USED))[1]!.allowed).toBe(false);
  });

  it('is one allowance however many nodes charge it at once', async () => {
    const nodes = [new RedisRateLimitStore(client()), new RedisRateLimitStore(client()), new RedisRateLimitStore(client())];
    const edge = { key: 'edge|203.0.113.9', rule: { max: 30, windowSeconds: 60 } };
    const decisions = await Promise.all(Array.from({ length: 90 }, (_, i) => nodes[i % nodes.length]!.charge([edge], NOT_USED)));
    const allowed = decisions.filter(([decision]) => decision!.allowed);
    expect(allowed).toHaveLength(30);
    expect(allowed.map(([decision]) => decision!.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
  });

  it("runs on Redis's clock, and forgets a key once its allowance is whole again", async () => {
    const redis = client();
    const store = new RedisRateLimitStore(redis);
    const [seconds] = await redis.time();
    const rule = { max: 1, windowSeconds: 0.2 };
    const [first] = await store.charge([{ key: 'brief', rule }], NOT_USED);
    expect(first!.resetAt).toBeGreaterThanOrEqual(Number(seconds));
    expect(first!.resetAt).toBeLessThanOrEqual(Number(seconds) + 2);
    expect((await store.charge([{ key: 'brief', rule }], NOT_USED))[0]!.allowed).toBe(false);
    expect(await redis.exists(limitKey('brief'))).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await redis.exists(limitKey('brief'))).toBe(0);
    expect((await store.charge([{ key: 'brief', rule }], NOT_USED))[0]!.allowed).toBe(true);
  });
});
