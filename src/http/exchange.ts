// One HTTP request/response on uWebSockets.js, made safe for async work:
// a response kept open past the uWS callback registers onAborted, writes
// only while the client is there and corks every write. It compresses JSON
// for clients that accept gzip and streams large bodies with backpressure
// (tryEnd/onWritable). Bodies of ordinary size are compressed within the
// uWS callback: uWS closes a connection whose next pipelined request
// arrives while an answer is still pending, so an answer that can be
// written at once is.
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';

import type { ErrorAnswer } from '../api/api-error.js';
import { HeaderBlock, statusLine } from './header-block.js';
import type { HttpRequest, HttpResponse } from './uws.js';

const gzipAsync = promisify(gzip);
/** Smaller bodies are not worth compressing. */
const GZIP_MIN_BYTES = 1024;
/** Larger bodies are compressed off the event loop (about 1 ms of CPU per 64 KiB). */
const GZIP_SYNC_MAX_BYTES = 64 * 1024;
/** Bodies uWS may hold whole when the socket pushes back; larger ones go out as it drains. */
const SMALL_BODY_BYTES = 16 * 1024;

export type Headers = Record<string, string>;

const JSON_HEADERS: Headers = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };
const PLAIN_JSON = new HeaderBlock(JSON_HEADERS);
const GZIPPED_JSON = new HeaderBlock({ ...JSON_HEADERS, 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });

/** A JSON body that never changes (the OpenAPI document): serialised and compressed once, answered at once whatever its size. */
export interface PreparedJson {
  plain: Buffer;
  gzipped: Buffer;
}

export function prepareJson(text: string): PreparedJson {
  return { plain: Buffer.from(text), gzipped: gzipSync(text) };
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
   * while they can be read. Must be called before that callback returns;
   * an answer written at once does without it.
   */
  holdOpen(): void {
    if (this.held || this.finished) return;
    this.held = true;
    this.readAcceptEncoding(); // the request cannot be read after the callback
    this.req = undefined;
    this.res.onAborted(() => {
      this.aborted = true;
      const handlers = this.abortHandlers ?? [];
      this.abortHandlers = undefined;
      for (const handler of handlers) handler();
    });
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
   * `more` are headers of this answer beside the shared `headers`.
   */
  jsonText(status: string, text: string | Buffer, headers: Headers = {}, more?: Headers | HeaderBlock): void | Promise<void> {
    if (text.length >= GZIP_MIN_BYTES && this.acceptsGzip) {
      if (text.length <= GZIP_SYNC_MAX_BYTES) return this.writeJson(status, gzipSync(text), true, headers, more);
      return gzipAsync(text).then((compressed) => this.writeJson(status, compressed, true, headers, more));
    }
    this.writeJson(status, typeof text === 'string' ? Buffer.from(text) : text, false, headers, more);
  }

  /** Answers with a prepared body within the uWS callback, compressed for a client that accepts gzip. */
  preparedJson(status: string, body: PreparedJson, headers: Headers): void {
    const compressed = this.acceptsGzip;
    this.writeJson(status, compressed ? body.gzipped : body.plain, compressed, headers, undefined);
  }

  private writeJson(status: string, bytes: Buffer, compressed: boolean, headers: Headers, more: Headers | HeaderBlock | undefined): void {
    this.write(status, bytes, compressed ? GZIPPED_JSON : PLAIN_JSON, headers, more);
  }

  /**
   * Answers `status` with `bytes` as they are: `own` are the headers that
   * describe them (type, encoding, caching), `headers` the shared ones and
   * `more` this answer's others. A 304 or a HEAD request sends no body.
   */
  write(status: string, bytes: Buffer, own: Headers | HeaderBlock, headers: Headers = {}, more?: Headers | HeaderBlock): void {
    // Within the uWS callback (the request still readable) uWS has corked the response already.
    if (this.req !== undefined) this.writeCorked(status, bytes, own, headers, more);
    else this.cork(() => this.writeCorked(status, bytes, own, headers, more));
  }

  private writeCorked(status: string, bytes: Buffer, own: Headers | HeaderBlock, headers: Headers, more: Headers | HeaderBlock | undefined): void {
    const res = this.res.writeStatus(statusLine(status));
    writeHeaders(res, own);
    writeHeaders(res, headers);
    writeHeaders(res, more);
    if (this.head || status.startsWith('304')) {
      // endWithoutBody(length) would leave uWS waiting for `length` bytes, the response
      // pending and a pipelined request behind it closing the connection.
      res.writeHeader('Content-Length', String(bytes.length)).endWithoutBody();
      this.finished = true;
    } else this.end(bytes);
  }

  /** Answers with an error's status line, JSON Error body and headers. */
  error(answer: ErrorAnswer): void | Promise<void> {
    return this.json(answer.status, answer.body, answer.headers);
  }

  /**
   * Ends the response with `payload` (inside a cork), holding no more of a
   * large one in memory than the socket cannot take yet.
   */
  end(payload: Buffer): void {
    const res = this.res;
    if (payload.length <= SMALL_BODY_BYTES) {
      res.end(payload);
      this.finished = true;
      return;
    }
    const startOffset = res.getWriteOffset();
    const [ok, done] = res.tryEnd(payload, payload.length);
    if (ok || done) {
      this.finished = true;
      return;
    }
    this.holdOpen();
    res.onWritable((offset) => {
      const [sent] = res.tryEnd(payload.subarray(offset - startOffset), payload.length);
      return sent;
    });
  }
}

function writeHeaders(res: HttpResponse, headers: Headers | HeaderBlock | undefined): void {
  if (headers instanceof HeaderBlock) return headers.writeTo(res);
  for (const name in headers) res.writeHeader(name, headers[name]!);
}
