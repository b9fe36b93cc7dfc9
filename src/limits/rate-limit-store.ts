// Where rate-limit state lives. The in-memory store serves one process; a
// networked store (shared by several servers) implements the same
// interface, applying each call atomically.
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
  /** Theoretical arrival time per key (Unix ms). */
  private readonly tat = new Map<string, number>();
  private lastSweep = 0;

  async charge(charges: readonly RateCharge[], nowMs: number): Promise<RateDecision[]> {
    this.sweep(nowMs);
    const results = charges.map(({ key, rule }) => gcra(this.tat.get(key), rule, nowMs));
    if (results.every((r) => r.decision.allowed)) {
      for (const [i, { key }] of charges.entries()) this.tat.set(key, results[i]!.tatMs);
    }
    return results.map((r) => r.decision);
  }

  /** Forgets keys whose allowance is whole again (their state is the default). */
  private sweep(nowMs: number): void {
    if (nowMs - this.lastSweep < 60_000) return;
    this.lastSweep = nowMs;
    for (const [key, tat] of this.tat) if (tat <= nowMs) this.tat.delete(key);
  }
}
