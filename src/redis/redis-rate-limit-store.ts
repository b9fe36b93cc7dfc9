// The rate limits shared by every API node: one Lua script charges all the
// keys of a request or none, atomically, on Redis's clock (lua/gcra-charge.lua).
import type { Redis } from 'ioredis';

import type { RateDecision } from '../limits/rate/gcra.js';
import type { RateCharge, RateLimitStore } from '../limits/rate/rate-limit-store.js';
import { decisionsOf } from './gcra-decisions.js';
import { defineLua } from './lua-scripts.js';
import { limitKey } from './redis-keys.js';
import { orUnavailable } from './redis-unavailable.js';

export class RedisRateLimitStore implements RateLimitStore {
  constructor(private readonly redis: Redis) {
    defineLua(redis, 'selfscanGcra', 'gcra-charge.lua');
  }

  /** Charges on Redis's clock: `_nowMs` (the caller's clock) is not used. */
  async charge(charges: readonly RateCharge[], _nowMs: number): Promise<RateDecision[]> {
    if (charges.length === 0) return [];
    const keys = charges.map(({ key }) => limitKey(key));
    const args = charges.flatMap(({ rule }) => [rule.windowSeconds * 1000, rule.max]);
    return decisionsOf(charges, await orUnavailable((this.redis as unknown as GcraCommand).selfscanGcra(keys.length, ...keys, ...args)));
  }
}

interface GcraCommand {
  selfscanGcra(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<string[]>;
}
