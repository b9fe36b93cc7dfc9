// The rate limits shared by every API node: one Lua script charges all the
// keys of a request or none, atomically, on Redis's clock. Each decision is
// then worked out by the same GCRA as the in-memory store, from the state
// the script saw.
import type { Redis } from 'ioredis';

import { gcra, type RateDecision } from '../limits/gcra.js';
import type { RateCharge, RateLimitStore } from '../limits/rate-limit-store.js';
import { GCRA_SCRIPT } from './gcra-script.js';

/** Keys live under this prefix, one per limited key. */
const PREFIX = 'selfscan:limit:';

export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('selfscanGcra', { lua: GCRA_SCRIPT });
  }

  /** Charges on Redis's clock: `_nowMs` (the caller's clock) is not used. */
  async charge(charges: readonly RateCharge[], _nowMs: number): Promise<RateDecision[]> {
    if (charges.length === 0) return [];
    const keys = charges.map(({ key }) => PREFIX + key);
    const args = charges.flatMap(({ rule }) => [rule.windowSeconds * 1000, rule.max]);
    const [now, ...before] = (await (this.redis as unknown as GcraCommand).selfscanGcra(keys.length, ...keys, ...args)).map((text) =>
      text === '' ? undefined : Number(text),
    );
    return charges.map(({ rule }, i) => gcra(before[i], rule, now!).decision);
  }
}

interface GcraCommand {
  selfscanGcra(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<string[]>;
}
