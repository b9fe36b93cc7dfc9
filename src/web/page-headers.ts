// The headers of the page's answers. The HTML names the caller's IP, so it
// is never stored by a cache; its Content-Security-Policy allows only this
// origin's script and style (no inline code) and the panes' origins for
// fetch. Assets are named by their hash, so they are cached for a year.
import type { Headers } from '../http/exchange.js';

/** Headers every page answer carries, whatever it holds. */
const SECURITY: Headers = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** The Content-Security-Policy of an HTML page whose script may call `connectOrigins`. */
export function contentSecurityPolicy(connectOrigins: readonly string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    `connect-src ${["'self'", ...connectOrigins].join(' ')}`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Headers of an HTML page (no-store: it names the caller). */
export function htmlHeaders(connectOrigins: readonly string[]): Headers {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': contentSecurityPolicy(connectOrigins),
    'X-Frame-Options': 'DENY',
    ...SECURITY,
  };
}

export const TEXT_HEADERS: Headers = { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', ...SECURITY };

/** Headers of a hashed asset: cacheable for a year, never revalidated while fresh. */
export function assetHeaders(contentType: string, etag: string): Headers {
  return { 'Content-Type': contentType, 'Cache-Control': 'public, max-age=31536000, immutable', ETag: etag, Vary: 'Accept-Encoding', ...SECURITY };
}
