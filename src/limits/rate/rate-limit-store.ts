// Where rate-limit state lives. The in-memory store here is the state of
// one process (kept in the data dir by lmdb/lmdb-rate-limit-store.ts); a
// cluster's is in Redis, each call one atomic Lua step
// (redis/redis-rate-limit-store.ts).
import { gcra, type RateDecision, type RateRule } from './gcra.js';

export interface RateCharge {
  key: string;
  rule: RateRule;
}

export interface RateLimitStore {
  /**
   * Charges one request to every key, all or none: if any rule refuses,
   * nothing is charged. Returns the decision of each charge, in order.
   */
  charge(charges: readonly RateCharge[], nowMs: number): Promise<RateDecision[]>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private lastSweep = 0;

  /**
   * `tat`: the theoretical arrival time per key (Unix ms) to start from.
   * `changed` hears of every key set or forgotten (to keep a copy).
   */
  constructor(
    private readonly tat = new Map<string, number>(),
    private readonly changed: (key: string) => void = () => {},
  ) {}

  async charge(charges: readonly RateCharge[], nowMs: number): Promise<RateDecision[]> {
    this.sweep(nowMs);
    const results = charges.map(({ key, rule }) => gcra(this.tat.get(key), rule, nowMs));
    if (results.every((r) => r.decision.allowed)) {
      for (const [i, { key }] of charges.entries()) {
        this.tat.set(key, results[i]!.tatMs);
        this.changed(key);
      }
    }
    return results.map((r) => r.decision);
  }

  /** The arrival time kept for `key`, if any. */
  get(key: string): number | undefined {
    return this.tat.get(key);
  }

  /** Forgets keys whose allowance is whole again (their state is the default). */
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [key, tat] of this.tat) {
      if (tat > nowMs) continue;
      this.tat.delete(key);
      this.changed(key);
    }
  }
}
