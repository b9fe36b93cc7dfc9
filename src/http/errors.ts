// Every error the HTTP interface answers with: status, code and a default
// reason. Bodies are the interface's Error object.

export type ErrorCode =
  | 'not_found'
  | 'method_not_allowed'
  | 'not_available'
  | 'invalid_target'
  | 'invalid_callback_url'
  | 'rate_limited'
  | 'unavailable';

export const ERROR_STATUS: Readonly<Record<ErrorCode, string>> = {
  not_found: '404 Not Found',
  method_not_allowed: '405 Method Not Allowed',
  not_available: '403 Forbidden',
  invalid_target: '422 Unprocessable Entity',
  invalid_callback_url: '422 Unprocessable Entity',
  rate_limited: '429 Too Many Requests',
  unavailable: '503 Service Unavailable',
};

export interface ErrorBody {
  error: ErrorCode;
  reason: string;
  retry_after?: number;
}

/** A refusal decided before any scan starts. */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly reason: string,
    readonly retryAfter?: number,
  ) {
    super(reason);
  }

  get body(): ErrorBody {
    return this.retryAfter === undefined
      ? { error: this.code, reason: this.reason }
      : { error: this.code, reason: this.reason, retry_after: this.retryAfter };
  }
}
