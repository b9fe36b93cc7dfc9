// What uWebSockets.js does not check before a handler runs, checked for
// every handler of the app (uWS has no option for any of it):
// - it reads only the first Content-Length line and runs whatever follows
//   the body that line implies as the next request: conflicting lines
//   smuggle a request past a proxy that honours another (RFC 9112 §6.3
//   requires a 400);
// - it reads any Transfer-Encoding as chunked, where a final coding other
//   than chunked makes the length unknowable (RFC 9112 §6.3: 400);
// - it parses headers of any size that arrive in one read (only a head
//   split over reads is cut at 4 KiB), so size is bounded here: 431.
// A refused request is answered and its connection closed; nothing after
// its head is read.
import { ApiError } from '../api/api-error.js';
import type { HttpFront } from './http-front.js';
import type { HttpRequest, HttpResponse, HttpRouter, RecognizedString } from './seam.js';

type Handler = (res: HttpResponse, req: HttpRequest) => void | Promise<void>;

/** The app's methods that register a handler for a pattern. */
const REGISTERING = ['get', 'post', 'head', 'options', 'put', 'del', 'patch', 'trace', 'connect', 'any'] as const;

/** The largest request head accepted (request line and header lines). */
export const MAX_HEAD_BYTES = 16 * 1024;

/** What one walk over a request's header lines found; module state, so the walk allocates no closure per request. */
let headBytes = 0;
let length: string | undefined;
let conflict: string | null = null;
let encoding: string | null = null;

function readLine(name: string, value: string): void {
  headBytes += name.length + value.length + 4;
  if (name === 'transfer-encoding') encoding = value;
  if (name !== 'content-length' || conflict !== null) return;
  for (const item of value.split(',')) {
    const trimmed = item.trim();
    length ??= trimmed;
    if (trimmed !== length) conflict = `conflicting Content-Length values ${length} and ${trimmed}`;
  }
}

/** Why the request is refused before any handler sees it, or null. */
export function refusalOf(req: HttpRequest): ApiError | null {
  headBytes = req.getMethod().length + req.getUrl().length + (req.getQuery()?.length ?? 0) + 12;
  length = undefined;
  conflict = null;
  encoding = null;
  req.forEach(readLine);
  // Typed anew: the checker does not see readLine assign them.
  const conflicting = conflict as string | null;
  const coding = encoding as string | null;
  if (headBytes > MAX_HEAD_BYTES) return new ApiError('headers_too_large', `the request head is over ${MAX_HEAD_BYTES} bytes`);
  if (conflicting !== null) return new ApiError('bad_request', conflicting);
  if (coding !== null && finalCoding(coding) !== 'chunked') return new ApiError('bad_request', `Transfer-Encoding must end in chunked, not "${coding}"`);
  return null;
}

/** The last coding a Transfer-Encoding value names, lower case. */
function finalCoding(value: string): string {
  return (value.split(',').pop() ?? '').trim().toLowerCase();
}

/**
 * Answers a refused request and closes its connection before anything after
 * its head is read as a request (RFC 9112 §6.3); true when it did.
 *
 * uWS (20.30) runs a route callback corked and goes on parsing the rest of
 * the read, so `end(body, true)` alone answers a request pipelined behind
 * the refused one, and the close is forgotten. It closes at once only when
 * the socket is no longer corked as the response ends, and stops parsing
 * then; close() within the callback would drop the corked answer, and the
 * response may not be touched after end(). A write that does not fit in the
 * cork buffer uncorks the socket (the answer goes to the kernel at once), so
 * on that front the body is padded past it (with JSON whitespace,
 * `bodyBytes`): the answer arrives whole, then EOF.
 */
function refuse(res: HttpResponse, req: HttpRequest, bodyBytes: number): boolean {
  const refusal = refusalOf(req);
  if (refusal === null) return false;
  const answer = refusal.answer({});
  res.writeStatus(answer.status).writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(answer.body).padEnd(bodyBytes), true);
  return true;
}

/** A new router of `front` with every handler it is given run only for requests these checks let through. */
export function checkedApp(front: Pick<HttpFront, 'router' | 'refusalBodyBytes'>): HttpRouter {
  const app = front.router();
  for (const method of REGISTERING) {
    const register = app[method].bind(app);
    app[method] = (pattern: RecognizedString, handler: Handler) =>
      register(pattern, (res, req) => (refuse(res, req, front.refusalBodyBytes) ? undefined : handler(res, req)));
  }
  return app;
}
