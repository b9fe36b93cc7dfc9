// Answers a page (HTML or text) made per request: brotli or gzip when the
// client takes it (a page is small: compressing it costs well under a
// millisecond), as it is otherwise.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import type { Exchange, Headers } from '../http/exchange.js';

/** Brotli's quality for per-request pages: near its best ratio at a fraction of quality 11's time. */
const PAGE_BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } };

/** Writes `text` as `status` under `own` headers (type, caching, CSP) and the request's `headers`. */
export function answerPage(exchange: Exchange, status: string, text: string, own: Headers, headers: Headers, more?: Headers): void {
  const bytes = Buffer.from(text);
  if (exchange.accepts('br')) {
    return exchange.write(status, brotliCompressSync(bytes, PAGE_BROTLI), { ...own, 'Content-Encoding': 'br', Vary: 'Accept-Encoding' }, headers, more);
  }
  if (exchange.accepts('gzip')) {
    return exchange.write(status, gzipSync(bytes), { ...own, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' }, headers, more);
  }
  exchange.write(status, bytes, { ...own, Vary: 'Accept-Encoding' }, headers, more);
}
