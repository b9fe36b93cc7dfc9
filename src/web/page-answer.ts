// Answers of the page's routes in the encoding the client takes best
// (brotli, then gzip, then none). A page made per request is compressed
// here (it is small: well under a millisecond); assets come precompressed.
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

import type { Exchange, Headers } from '../http/exchange.js';

export type Encoding = 'br' | 'gzip' | 'identity';

/** The best encoding the request's Accept-Encoding takes. */
export function bestEncoding(exchange: Exchange): Encoding {
  return exchange.accepts('br') ? 'br' : exchange.accepts('gzip') ? 'gzip' : 'identity';
}

/** `own` headers with the Content-Encoding of `encoding` (none for identity). */
export function encodedHeaders(own: Headers, encoding: Encoding): Headers {
  return encoding === 'identity' ? own : { ...own, 'Content-Encoding': encoding };
}

/** Brotli's quality for per-request pages: near its best ratio at a fraction of quality 11's time. */
const PAGE_BROTLI = { params: { [constants.BROTLI_PARAM_QUALITY]: 6 } };

const COMPRESS: Readonly<Record<Encoding, (bytes: Buffer) => Buffer>> = {
  br: (bytes) => brotliCompressSync(bytes, PAGE_BROTLI),
  gzip: (bytes) => gzipSync(bytes),
  identity: (bytes) => bytes,
};

/** Writes `text` as `status` under `own` headers (type, caching, CSP) and the request's `headers`. */
export function answerPage(exchange: Exchange, status: string, text: string, own: Headers, headers: Headers, more?: Headers): void {
  const encoding = bestEncoding(exchange);
  const body = COMPRESS[encoding](Buffer.from(text));
  exchange.write(status, body, encodedHeaders({ ...own, Vary: 'Accept-Encoding' }, encoding), headers, more);
}
