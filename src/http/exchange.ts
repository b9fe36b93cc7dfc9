// One HTTP request/response on uWebSockets.js, made safe for async work:
// a response kept open past the uWS callback registers onAborted, writes
// only while the client is there and corks every write. It compresses JSON
// for clients that accept gzip.
//
// Pipelining: uWS parses every request of a read in one loop and closes the
// connection when it parses a request while the answer before it is still
// pending (HttpContext.h: "Are we not ready for another request yet?
// Terminate the connection."), before any handler of ours sees it. So an
// answer whose bytes exist within the uWS callback is ended there, whatever
// its size: uWS keeps what the socket cannot take yet, and the next request
// is answered after it. An answer that waits on I/O (a scan start, a rate
// limit, a v2 stream) stops the connection's reads while it is pending, so
// a request the client sends behind it waits in the kernel and is read
// after that answer ends. A request that came in the same read as such an
// answer's request is one uWS closes the connection for; nothing here can
// keep it.
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';

import type { ErrorAnswer } from '../api/api-error.js';
import { HeaderBlock, statusLine } from './header-block.js';
import type { HttpRequest, HttpResponse } from './seam.js';

const gzipAsync = promisify(gzip);
/** Smaller bodies are not worth compressing. */
const GZIP_MIN_BYTES = 1024;
/** Larger bodies are compressed off the event loop (about 1 ms of CPU per 64 KiB). */
const GZIP_SYNC_MAX_BYTES = 64 * 1024;

export type Headers = Record<string, string>;

const JSON_HEADERS: Headers = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const PLAIN_JSON = new HeaderBlock(JSON_HEADERS);
const GZIPPED_JSON = new HeaderBlock({ ...JSON_HEADERS, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });

/**
 * A JSON body that never changes (the OpenAPI document, a finished scan's
 * result): serialised once, compressed once the first time a client
 * accepts gzip, answered at once whatever its size.
 */
export class PreparedJson {
  private compressed: Buffer | undefined;

  constructor(readonly plain: Buffer) {}

  /** Whether it is large enough to be worth compressing. */
  get compressible(): boolean {
    return this.plain.length >= GZIP_MIN_BYTES;
  }

  get gzipped(): Buffer {
    return (this.compressed ??= gzipSync(this.plain));
  }
}

export function prepareJson(text: string): PreparedJson {
  return new PreparedJson(Buffer.from(text));
}

/** Whether an Accept-Encoding header names `encoding` with a weight above 0. */
export function acceptsEncoding(header: string, encoding: string): boolean {
  return header.split(',').some((item) => {
    const [name, ...params] = item.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    return name === encoding && (q === undefined || Number(q.slice(2)) > 0);
  });
}

export class Exchange {
  aborted = false;
  /** A HEAD request: same status and headers, no body. */
  private readonly head: boolean;
  /** Readable only during the uWS callback: headers are read from it on demand, or kept by holdOpen(). */
  private req: HttpRequest | undefined;
  private acceptEncoding: string | undefined;
  private held = false;
  /** The connection's reads are paused while this response is pending (see holdOpen). */
  private readsPaused = false;
  /** The response has been written whole. */
  private finished = false;
  private abortHandlers: (() => void)[] | undefined;

  /** `method` is the request's, upper case, as its route knows it. */
  constructor(
    readonly res: HttpResponse,
    req: HttpRequest,
    method: string,
  ) {
    this.req = req;
    this.head = method === 'HEAD';
  }

  get acceptsGzip(): boolean {
    return this.accepts('gzip');
  }

  /** Whether Accept-Encoding names `encoding` (`gzip`, `br`). */
  accepts(encoding: string): boolean {
    return acceptsEncoding(this.readAcceptEncoding(), encoding);
  }

  /** Accept-Encoding, read from the request the first time it is wanted. */
  private readAcceptEncoding(): string {
    return (this.acceptEncoding ??= this.req?.getHeader('accept-encoding') ?? '');
  }

  /**
   * Keeps the response open past the uWS callback: uWS then needs to be
   * told if the client goes away, and the request's headers are copied
   * while they can be read. Unless the request has a body, the connection
   * reads nothing more until the response ends (a request pipelined behind
   * it waits in the kernel's receive buffer), or until a write the socket
   * could not take makes uSockets poll it for reads and writes again. Must
   * be called before that callback returns; an answer written at once does
   * without it.
   */
  holdOpen(): void {
    if (this.held || this.finished) return;
    this.held = true;
    this.readAcceptEncoding(); // the request cannot be read after the callback
    const req = this.req;
    this.req = undefined;
    this.res.onAborted(() => {
      this.aborted = true;
      const handlers = this.abortHandlers ?? [];
      this.abortHandlers = undefined;
      for (const handler of handlers) handler();
    });
    // A request with a body still has bytes to read: its reads go on.
    if (req !== undefined && !hasBody(req)) {
      this.res.pause();
      this.readsPaused = true;
    }
  }

  /** Reads again before the response ends (after it, `res` may not be touched): the next request is read after this answer. */
  private resumeReads(): void {
    if (!this.readsPaused) return;
    this.readsPaused = false;
    this.res.resume();
  }

  /**
   * Writes a piece of a streamed body (chunked); false when the socket
   * pushed back (then uSockets polls the connection for reads and writes
   * again, so its reads are no longer paused).
   */
  writeChunk(chunk: string | Uint8Array): boolean {
    if (this.res.write(chunk)) return true;
    this.readsPaused = false;
    return false;
  }

  /** Ends a streamed response (inside a cork). */
  endStream(): void {
    this.resumeReads();
    this.res.end();
    this.finished = true;
  }

  /** Ends a response that has no body (inside a cork): a HEAD answer, its head written. */
  endWithoutBody(): void {
    this.resumeReads();
    this.res.endWithoutBody();
    this.finished = true;
  }

  /** Runs `handler` if the client goes away before the response ends. */
  onAbort(handler: () => void): void {
    (this.abortHandlers ??= []).push(handler);
  }

  /** Writes within a cork, unless the client has gone. */
  cork(write: () => void): void {
    if (!this.aborted) this.res.cork(write);
  }

  json(status: string, body: unknown, headers: Headers = {}): void | Promise<void> {
    return this.jsonText(status, JSON.stringify(body), headers);
  }

  /**
   * Answers with JSON already serialised (text, or its UTF-8 bytes): at
   * once, compressed for a client that accepts gzip, or after compressing
   * a body too large to compress on the event loop.
   */
  jsonText(status: string, text: string, headers: Headers = {}): void | Promise<void> {
    if (text.length >= GZIP_MIN_BYTES && this.acceptsGzip) {
      if (text.length <= GZIP_SYNC_MAX_BYTES) return this.writeJson(status, gzipSync(text), true, headers);
      return gzipAsync(text).then((compressed) => this.writeJson(status, compressed, true, headers));
    }
    this.writeJson(status, Buffer.from(text), false, headers);
  }

  /**
   * Answers with a prepared body within the uWS callback, compressed when
   * it is worth it and the client accepts gzip; `more` are this answer's
   * fixed headers (a kept result's duration).
   */
  preparedJson(status: string, body: PreparedJson, headers: Headers, more?: HeaderBlock): void {
    const compressed = body.compressible && this.acceptsGzip;
    this.writeJson(status, compressed ? body.gzipped : body.plain, compressed, headers, more);
  }

  /** A JSON answer: its status line and fixed headers are one write of bytes made once (HeaderBlock.head). */
  private writeJson(status: string, bytes: Buffer, compressed: boolean, headers: Headers, more?: HeaderBlock): void {
    this.send(status, (compressed ? GZIPPED_JSON : PLAIN_JSON).head(status, more), bytes, headers);
  }

  /**
   * Answers `status` with `bytes` as they are: `own` are the headers that
   * describe them (type, encoding, caching), `headers` the shared ones and
   * `more` this answer's others. A 304 or a HEAD request sends no body.
   */
  write(status: string, bytes: Buffer, own: Headers, headers: Headers = {}, more?: Headers): void {
    this.send(status, statusLine(status), bytes, headers, own, more);
  }

  /** Writes `head` (the status line, and any fixed headers after it), then the headers and the body. */
  private send(status: string, head: Buffer, bytes: Buffer, headers: Headers, own?: Headers, more?: Headers): void {
    // Within the uWS callback (the request still readable) uWS has corked the response already.
    if (this.req !== undefined) this.writeCorked(status, head, bytes, headers, own, more);
    else this.cork(() => this.writeCorked(status, head, bytes, headers, own, more));
  }

  private writeCorked(status: string, head: Buffer, bytes: Buffer, headers: Headers, own: Headers | undefined, more: Headers | undefined): void {
    const res = this.res.writeStatus(head);
    writeHeaders(res, own);
    writeHeaders(res, headers);
    writeHeaders(res, more);
    if (this.head || status.startsWith('304')) {
      // endWithoutBody(length) would leave uWS waiting for `length` bytes, the response
      // pending and a pipelined request behind it closing the connection.
      res.writeHeader('Content-Length', String(bytes.length));
      this.endWithoutBody();
    } else this.end(bytes);
  }

  /** Answers with an error's status line, JSON Error body and headers. */
  error(answer: ErrorAnswer): void | Promise<void> {
    return this.json(answer.status, answer.body, answer.headers);
  }

  /**
   * Ends the response with `payload` (inside a cork), whatever its size:
   * uWS keeps what the socket cannot take yet (a copy of it) and sends it
   * as the socket drains. Left pending instead (tryEnd and onWritable), the
   * answer would make uWS close the connection at the next pipelined
   * request, losing it and the rest of this answer.
   */
  end(payload: Buffer): void {
    this.resumeReads();
    this.res.end(payload);
    this.finished = true;
  }
}

/** Whether `req` announces a body (RFC 9112 §6.3: a Transfer-Encoding, or a Content-Length above 0). */
function hasBody(req: HttpRequest): boolean {
  const length = req.getHeader('content-length');
  return req.getHeader('transfer-encoding') !== '' || (length !== '' && length !== '0');
}

function writeHeaders(res: HttpResponse, headers: Headers | undefined): void {
  for (const name in headers) res.writeHeader(name, headers[name]!);
}
