// A request the abuse controls turn away, with what the caller needs to know.
import { ApiError } from '../api/api-error.js';
import type { ErrorCode } from '../api/error-body.js';
import type { RateDecision } from './rate/gcra.js';

export type RefusalCode = Extract<ErrorCode, 'invalid_target' | 'not_available' | 'rate_limited'>;

export class Refusal extends ApiError {
  constructor(
    override readonly code: RefusalCode,
    reason: string,
    /** The limit that refused (rate_limited only): its headers and Retry-After. */
    decision?: RateDecision,
  ) {
    super(code, reason, decision && { retryAfter: decision.retryAfter, limitHeaders: rateLimitHeaders(decision) });
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
