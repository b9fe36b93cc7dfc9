// A request the abuse controls turn away, with what the caller needs to know.
import type { RateDecision } from './gcra.js';

export type RefusalCode = 'invalid_target' | 'not_available' | 'rate_limited';

export class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly reason: string,
    /** The limit that refused (rate_limited only): its headers and Retry-After. */
    readonly decision?: RateDecision,
  ) {
    super(reason);
  }
}

/** X-RateLimit-* headers of a decision. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetAt),
  };
}
