// Starts (or joins) a scan with one GET /v2/{type} through a pane's origin
// (from every region: `?regions=all`) and tells what came back: a stream of
// events, a refusal (the JSON Error with its status and wait), or no path
// at all (the fetch failed at the network level: the browser cannot reach
// that origin).
import type { RegionsAsked } from '../../api/regions-asked.js';
import type { ScanType } from '../../api/scan-type.js';
import type { SseMessage } from '../../api/sse-parser.js';
import { sseFrames } from './sse-frames.js';

/** The edge limit's remaining requests, from the X-RateLimit-* headers (null when the limit is off). */
export interface Budget {
  remaining: number;
  limit: number;
}

export type ScanAnswer =
  | { kind: 'stream'; frames: AsyncGenerator<SseMessage>; budget: Budget | null }
  | { kind: 'refused'; status: number; error: string; reason: string; retryAfter: number | null; budget: Budget | null }
  | { kind: 'unreachable' };

function budgetOf(headers: Headers): Budget | null {
  const remaining = Number.parseInt(headers.get('X-RateLimit-Remaining') ?? '', 10);
  const limit = Number.parseInt(headers.get('X-RateLimit-Limit') ?? '', 10);
  return Number.isFinite(remaining) && Number.isFinite(limit) ? { remaining, limit } : null;
}

async function errorOf(response: Response): Promise<{ error: string; reason: string }> {
  try {
    const body: unknown = await response.json();
    if (typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string') {
      const reason = 'reason' in body && typeof body.reason === 'string' ? body.reason : '';
      return { error: body.error, reason };
    }
  } catch {
    // not JSON: fall through to the status alone
  }
  return { error: `http_${response.status}`, reason: `the service answered ${response.status} ${response.statusText}`.trim() };
}

function retryAfterOf(headers: Headers): number | null {
  const seconds = Number.parseInt(headers.get('Retry-After') ?? '', 10);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : null;
}

/** GET {origin}/v2/{type}, from `regionsAsked` when given (`?regions=`); `signal` aborts the request and its stream. */
export async function requestScan(origin: string, scanType: ScanType, signal: AbortSignal, regionsAsked?: RegionsAsked): Promise<ScanAnswer> {
  const query = regionsAsked === undefined ? '' : `?regions=${encodeURIComponent(regionsAsked)}`;
  let response: Response;
  try {
    response = await fetch(`${origin}/v2/${scanType}${query}`, { headers: { Accept: 'text/event-stream' }, cache: 'no-store', signal });
  } catch (error) {
    if (signal.aborted) throw error;
    return { kind: 'unreachable' };
  }
  const budget = budgetOf(response.headers);
  if (response.ok && response.body !== null) return { kind: 'stream', frames: sseFrames(response.body), budget };
  const { error, reason } = await errorOf(response);
  return { kind: 'refused', status: response.status, error, reason, retryAfter: retryAfterOf(response.headers), budget };
}
