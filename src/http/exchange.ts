// One HTTP request/response on uWebSockets.js, made safe for async work:
// it registers onAborted at once, writes only while the client is there,
// corks every write, compresses JSON for clients that accept gzip and
// streams large bodies with backpressure (tryEnd/onWritable).
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

import { ApiError, ERROR_STATUS } from './errors.js';
import type { HttpRequest, HttpResponse } from './uws.js';

const gzipAsync = promisify(gzip);
/** Smaller bodies are not worth compressing. */
const GZIP_MIN_BYTES = 1024;

export type Headers = Record<string, string>;

export class Exchange {
  aborted = false;
  readonly acceptsGzip: boolean;
  /** A HEAD request: same status and headers, no body. */
  private readonly head: boolean;
  private readonly abortHandlers: (() => void)[] = [];

  constructor(
    readonly res: HttpResponse,
    req: HttpRequest,
  ) {
    this.acceptsGzip = /\bgzip\b/i.test(req.getHeader('accept-encoding'));
    this.head = req.getMethod() === 'head';
    res.onAborted(() => {
      this.aborted = true;
      for (const handler of this.abortHandlers.splice(0)) handler();
    });
  }

  /** Runs `handler` if the client goes away before the response ends. */
  onAbort(handler: () => void): void {
    this.abortHandlers.push(handler);
  }

  /** Writes within a cork, unless the client has gone. */
  cork(write: () => void): void {
    if (!this.aborted) this.res.cork(write);
  }

  json(status: string, body: unknown, headers: Headers = {}): Promise<void> {
    return this.jsonText(status, JSON.stringify(body), headers);
  }

  /** Answers with JSON already serialised. */
  async jsonText(status: string, text: string, headers: Headers = {}): Promise<void> {
    let payload: Buffer | string = text;
    let compressed = false;
    if (this.acceptsGzip && text.length >= GZIP_MIN_BYTES) {
      payload = await gzipAsync(text);
      compressed = true;
    }
    this.cork(() => {
      const res = this.res;
      res.writeStatus(status).writeHeader('Content-Type', 'application/json').writeHeader('Cache-Control', 'no-store');
      if (compressed) res.writeHeader('Content-Encoding', 'gzip').writeHeader('Vary', 'Accept-Encoding');
      for (const name in headers) res.writeHeader(name, headers[name]!);
      const bytes = typeof payload === 'string' ? Buffer.from(payload) : payload;
      if (this.head) res.endWithoutBody(bytes.length);
      else this.end(bytes);
    });
  }

  error(error: ApiError, headers: Headers = {}): Promise<void> {
    const extra = error.retryAfter === undefined ? headers : { ...headers, 'Retry-After': String(error.retryAfter) };
    return this.json(ERROR_STATUS[error.code], error.body, extra);
  }

  /**
   * Ends the response with `payload` (inside a cork), holding no more of it
   * in memory than the socket cannot take yet.
   */
  end(payload: Buffer): void {
    const res = this.res;
    const startOffset = res.getWriteOffset();
    const [ok, done] = res.tryEnd(payload, payload.length);
    if (ok || done) return;
    res.onWritable((offset) => {
      const [sent] = res.tryEnd(payload.subarray(offset - startOffset), payload.length);
      return sent;
    });
  }
}
