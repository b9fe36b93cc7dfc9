// One mapping from anything thrown to the HTTP answer, for REST and MCP
// alike: each kind of error keeps its code, status, sentence and headers.
import { describe, expect, it, vi } from 'vitest';

import { ApiError, errorAnswer } from '../../src/api/api-error.js';
import { ERROR_CODES } from '../../src/api/error-body.js';
import { Refusal } from '../../src/limits/refusal.js';
import { ShuttingDownError } from '../../src/memory/memory-scan-book.js';

const EDGE = { 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': '29', 'X-RateLimit-Reset': '1700000060' };

describe('errorAnswer', () => {
  it('answers an ApiError with the status of its code, its body and the request headers', () => {
    const log = vi.fn();
    expect(errorAnswer(new ApiError('invalid_callback_url', 'X-Callback-Url must use http or https'), EDGE, log)).toEqual({
      status: '422 Unprocessable Entity',
      body: { error: 'invalid_callback_url', reason: 'X-Callback-Url must use http or https' },
      headers: EDGE,
    });
    expect(log).not.toHaveBeenCalled();
  });

  it('answers a rate-limit refusal with the refusing limit headers, Retry-After and retry_after', () => {
    const decision = { allowed: false, limit: 1, remaining: 0, resetAt: 1_700_000_300, retryAfter: 298 };
    const answer = errorAnswer(new Refusal('rate_limited', 'deep scans are limited', decision), EDGE, vi.fn());
    expect(answer).toEqual({
      status: '429 Too Many Requests',
      body: { error: 'rate_limited', reason: 'deep scans are limited', retry_after: 298 },
      headers: { 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '1700000300', 'Retry-After': '298' },
    });
    expect(Object.keys(answer.headers).at(-1)).toBe('Retry-After'); // written after the limit's own headers
  });

  it('answers a refusal without a limit with the request headers', () => {
    expect(errorAnswer(new Refusal('not_available', 'opted out'), EDGE, vi.fn())).toEqual({
      status: '403 Forbidden',
      body: { error: 'not_available', reason: 'opted out' },
      headers: EDGE,
    });
  });

  it('answers a stopping service with 503 unavailable and says so', () => {
    expect(errorAnswer(new ShuttingDownError(), {}, vi.fn())).toEqual({
      status: '503 Service Unavailable',
      body: { error: 'unavailable', reason: 'the service is shutting down; try again shortly' },
      headers: {},
    });
  });

  it('answers anything else with a generic 503 and hands it to the log, details withheld', () => {
    const log = vi.fn();
    const failure = new Error('ENOSPC: no space left on device');
    const answer = errorAnswer(failure, EDGE, log);
    expect(answer).toEqual({
      status: '503 Service Unavailable',
      body: { error: 'unavailable', reason: 'the service could not handle this request; try again shortly' },
      headers: EDGE,
    });
    expect(log).toHaveBeenCalledWith(failure);
  });

  it('has an HTTP status line for every code', () => {
    for (const { status } of Object.values(ERROR_CODES)) expect(status).toMatch(/^[45]\d\d [A-Z][A-Za-z ]+$/);
  });
});
