// The generic cell rate algorithm: "max requests per window" as a smoothly
// refilling allowance. Unlike a fixed window it never lets 2 x max through
// around a window boundary, and its whole state is one timestamp per key.

/** At most `max` per `windowSeconds`; `max: 0` means unlimited. */
export interface RateRule {
  max: number;
  windowSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the allowance is whole again. */
  resetAt: number;
  /** Seconds to wait before a request can pass; 0 when allowed. */
  retryAfter: number;
}

/**
 * Applies one request at `nowMs` to a key whose theoretical arrival time is
 * `tatMs` (undefined: fresh). Returns the decision and the new arrival time
 * to store (the old one, unchanged, when refused).
 */
export function gcra(tatMs: number | undefined, rule: RateRule, nowMs: number): { decision: RateDecision; tatMs: number } {
  const windowMs = rule.windowSeconds * 1000;
  const interval = windowMs / rule.max;
  const tat = Math.max(tatMs ?? nowMs, nowMs);
  const next = tat + interval;
  const allowAt = next - windowMs;
  if (nowMs < allowAt) {
    return {
      decision: { allowed: false, limit: rule.max, remaining: 0, resetAt: Math.ceil(tat / 1000), retryAfter: Math.max(1, Math.ceil((allowAt - nowMs) / 1000)) },
      tatMs: tat,
    };
  }
  const remaining = Math.max(0, Math.floor((windowMs - (next - nowMs)) / interval + 1e-9));
  return {
    decision: { allowed: true, limit: rule.max, remaining, resetAt: Math.ceil(next / 1000), retryAfter: 0 },
    tatMs: next,
  };
}
