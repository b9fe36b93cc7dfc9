// One table of GCRA cases, run against both implementations: the
// TypeScript one (src/limits/rate/gcra.ts, behind the single process's
// MemoryRateLimitStore) and the Lua one (src/redis/lua/gcra-charge.lua, on a
// redis-server of this file's own). The Lua runs on Redis's clock; here its
// include that reads the clock (now-ms) is swapped for a time the test
// passes, so both see the same instants. At every step both must admit the
// same charges, store the same arrival time to the bit, and give the same
// decisions.
import { describe, expect, it } from 'vitest';

import type { RateRule } from '../../src/limits/rate/gcra.js';
import { MemoryRateLimitStore, type RateCharge } from '../../src/limits/rate/rate-limit-store.js';
import { decisionsOf } from '../../src/redis/gcra-decisions.js';
import { luaScript } from '../../src/redis/lua-scripts.js';
import { limitKey } from '../../src/redis/redis-keys.js';
import { redisPerFile } from '../helpers/redis-per-file.js';

const client = redisPerFile();

/** The production script, its clock read from the last argument instead of TIME. */
const SCRIPT_AT = luaScript('gcra-charge.lua', { 'now-ms': 'local now = tonumber(ARGV[#ARGV])' }).lua;

interface Step {
  atMs: number;
  charges: { key: string; rule: RateRule }[];
  /** How many times the step repeats at the same instant. */
  times?: number;
}

const perIp: RateRule = { max: 1, windowSeconds: 300 };
const perAsn: RateRule = { max: 2, windowSeconds: 3600 };
const at = (atMs: number, rule: RateRule, times = 1, key = 'k'): Step => ({ atMs, charges: [{ key, rule }], times });

const CASES: [string, Step[]][] = [
  [
    'a burst of max, then one per window/max',
    [at(0, { max: 30, windowSeconds: 60 }, 31), at(1999, { max: 30, windowSeconds: 60 }), at(2000, { max: 30, windowSeconds: 60 }, 2)],
  ],
  ['never 2 x max around a window boundary', [at(59_000, { max: 10, windowSeconds: 60 }, 10), at(61_000, { max: 10, windowSeconds: 60 }, 20)]],
  ['one deep scan per 5 minutes', [at(0, perIp), at(100_000, perIp), at(299_999, perIp), at(300_000, perIp, 2)]],
  [
    'an interval that is no whole number of milliseconds',
    [
      at(0, { max: 7, windowSeconds: 60 }, 8),
      at(8571, { max: 7, windowSeconds: 60 }),
      at(8572, { max: 7, windowSeconds: 60 }, 2),
      at(25_715, { max: 7, windowSeconds: 60 }, 3),
    ],
  ],
  [
    'all keys or none',
    [
      {
        atMs: 0,
        charges: [
          { key: 'ip', rule: perIp },
          { key: 'asn', rule: perAsn },
        ],
        times: 2,
      },
      {
        atMs: 10,
        charges: [
          { key: 'other', rule: perIp },
          { key: 'asn', rule: perAsn },
        ],
      },
      {
        atMs: 20,
        charges: [
          { key: 'third', rule: perIp },
          { key: 'asn', rule: perAsn },
        ],
      },
      {
        atMs: 1_800_000,
        charges: [
          { key: 'third', rule: perIp },
          { key: 'asn', rule: perAsn },
        ],
      },
    ],
  ],
  [
    'a window under a second',
    [
      at(0, { max: 3, windowSeconds: 0.25 }, 4),
      at(83, { max: 3, windowSeconds: 0.25 }),
      at(84, { max: 3, windowSeconds: 0.25 }),
      at(250, { max: 3, windowSeconds: 0.25 }, 3),
      at(600, { max: 3, windowSeconds: 0.25 }, 4),
    ],
  ],
  ['a large allowance', [at(0, { max: 2000, windowSeconds: 3600 }, 2001), at(1800, { max: 2000, windowSeconds: 3600 }, 2)]],
];

describe('GCRA: TypeScript and Lua agree', () => {
  it.each(CASES)('%s', async (name, steps) => {
    const redis = client();
    // PXAT expiries must lie ahead of Redis's real clock: start an hour on.
    const t0 = Date.now() + 3_600_000;
    const memory = new MemoryRateLimitStore();
    const prefix = `${name.replace(/\W+/g, '-')}|`;
    for (const step of steps) {
      for (let n = 0; n < (step.times ?? 1); n++) {
        const nowMs = t0 + step.atMs;
        const charges: RateCharge[] = step.charges.map(({ key, rule }) => ({ key: prefix + key, rule }));
        const keys = charges.map(({ key }) => limitKey(key));
        const expected = await memory.charge(charges, nowMs);
        const args = [...charges.flatMap(({ rule }) => [rule.windowSeconds * 1000, rule.max]), nowMs];
        const reply = (await redis.eval(SCRIPT_AT, keys.length, ...keys, ...args)) as string[];
        const where = `${name}, at +${step.atMs} ms, charge ${n + 1}`;
        expect(decisionsOf(charges, reply), where).toEqual(expected);
        // An arrival time already past is the same as none: the memory store
        // forgets such keys once a minute, Redis when they expire.
        const live = (tat: number | undefined) => (tat === undefined || tat <= nowMs ? undefined : tat);
        const stored = await Promise.all(keys.map((key) => redis.get(key)));
        expect(
          stored.map((text) => live(text === null ? undefined : Number(text))),
          where,
        ).toEqual(charges.map(({ key }) => live(memory.get(key))));
      }
    }
  });
});
