// An error the interface answers with an Error object, and the one mapping
// from anything thrown to that answer, shared by REST and MCP so that each
// code's status and each generic sentence are written once.
import { ERROR_CODES, type ErrorBody, type ErrorCode } from './error-body.js';

/** An error as the HTTP interface answers it. */
export interface ErrorAnswer {
  /** The status line, e.g. `429 Too Many Requests`. */
  status: string;
  body: ErrorBody;
  headers: Record<string, string>;
}

/** What a failure that is no ApiError answers; its details go to the log only. */
const UNEXPECTED_REASON = 'the service could not handle this request; try again shortly';

/**
 * An error answered to the caller as `{error, reason, retry_after?}`, with
 * the HTTP status of its code. Subclasses say why it was thrown (a refused
 * start, a stopping service).
 */
export class ApiError extends Error {
  /** Seconds until a retry may succeed: `retry_after` and Retry-After. */
  readonly retryAfter: number | undefined;
  /** X-RateLimit-* headers of the limit that refused, answered in place of the request's own. */
  readonly limitHeaders: Record<string, string> | undefined;

  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
    options: { retryAfter?: number; limitHeaders?: Record<string, string> } = {},
  ) {
    super(reason);
    this.retryAfter = options.retryAfter;
    this.limitHeaders = options.limitHeaders;
  }

  /** The Error object of this error. */
  get body(): ErrorBody {
    return this.retryAfter === undefined ? { error: this.code, reason: this.reason } : { error: this.code, reason: this.reason, retry_after: this.retryAfter };
  }

  /** The HTTP answer: `headers` are the request's X-RateLimit-* (and any other) headers. */
  answer(headers: Record<string, string>): ErrorAnswer {
    const own = this.limitHeaders ?? headers;
    return {
      status: ERROR_CODES[this.code].status,
      body: this.body,
      headers: this.retryAfter === undefined ? own : { ...own, 'Retry-After': String(this.retryAfter) },
    };
  }
}

/**
 * The answer to anything a request or tool call threw: an ApiError answers
 * as itself; anything else is `unavailable` with a generic sentence, and
 * `logUnexpected` gets it (the caller is told no details).
 */
export function errorAnswer(error: unknown, headers: Record<string, string>, logUnexpected: (error: unknown) => void): ErrorAnswer {
  if (error instanceof ApiError) return error.answer(headers);
  logUnexpected(error);
  return new ApiError('unavailable', UNEXPECTED_REASON).answer(headers);
}
