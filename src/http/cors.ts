// Cross-origin reads for the page's IPv4 and IPv6 panes: each pane scans
// through an origin that resolves over one family only, so the page calls
// the API on another origin. Only the origins the operator configured may
// read the answers; every other origin gets no CORS header at all.
import type { Headers } from './exchange.js';
import type { HttpRequest } from './seam.js';

/** uWS converts a string key to UTF-8 on every call, a Buffer it reads as is. */
const ORIGIN = Buffer.from('origin');

/** The response headers a pane needs to read: the limits and the wait. */
const EXPOSED = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Scan-Duration-Ms';

export class CorsPolicy {
  private readonly allowed: ReadonlySet<string>;
  private readonly answers = new Map<string, Headers>();

  /** `origins` as URLs (`https://v4.example.net`); only their scheme, host and port count. */
  constructor(origins: readonly string[]) {
    this.allowed = new Set(origins.map((origin) => new URL(origin).origin));
  }

  get origins(): readonly string[] {
    return [...this.allowed];
  }

  /** The CORS headers for `req` (read in the uWS callback); its Origin header is read only when some origin is allowed. */
  headersForRequest(req: HttpRequest): Headers | null {
    return this.allowed.size === 0 ? null : this.headersFor(req.getHeader(ORIGIN));
  }

  /** The CORS headers for a request with this Origin header; null: none (same origin, or not allowed). */
  headersFor(origin: string): Headers | null {
    if (origin === '' || !this.allowed.has(origin)) return null;
    let headers = this.answers.get(origin);
    if (headers === undefined) {
      headers = { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED, Vary: 'Origin' };
      Object.freeze(headers); // shared by every answer to this origin
      this.answers.set(origin, headers);
    }
    return headers;
  }
}
