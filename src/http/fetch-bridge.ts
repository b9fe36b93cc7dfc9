// Serves a fetch-style handler (a Web `Request` in, a Web `Response` out)
// from a uWebSockets.js route. uWS hands out the request only during the
// route callback and drops body data nobody listens for, so the head is
// copied and the body reader attached there, synchronously; the response is
// then written back through the route's Exchange: in one piece, or, for a
// `text/event-stream` body, chunk by chunk as the handler produces it,
// pausing while the socket pushes back.
import { STATUS_CODES } from 'node:http';

import type { Exchange, Headers as HeaderMap } from './exchange.js';
import type { HttpRequest, HttpResponse } from './seam.js';

/** What the bridge reads of a request before the route callback returns. */
export interface RequestHead {
  method: string;
  /** Path and query string, e.g. `/mcp?x=1`. */
  target: string;
  headers: Headers;
}

/** How a request body ended. */
export type BodyOutcome = { kind: 'complete'; body: Uint8Array<ArrayBuffer> } | { kind: 'too_large' } | { kind: 'aborted' };

/** Hop-by-hop and framing headers: uWS writes its own. */
const FRAMING_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

/**
 * Copies method, path, query and headers out of `req`. Call it in the route
 * callback, before any await. Never throws: a header value the Fetch API
 * refuses is left out.
 */
export function readRequestHead(req: HttpRequest): RequestHead {
  const query = req.getQuery();
  const headers = new Headers();
  req.forEach((name, value) => {
    try {
      headers.append(name, value);
    } catch {
      // Not representable in a Web Headers object; the handler does without it.
    }
  });
  return { method: req.getMethod().toUpperCase(), target: query ? `${req.getUrl()}?${query}` : req.getUrl(), headers };
}

/**
 * The body of one request, at most `maxBytes` of it held in memory. Create
 * it in the route callback (uWS drops data that arrives before onData is
 * attached). Past `maxBytes` it keeps reading but drops what it reads, so
 * the request can still be answered.
 */
export class RequestBody {
  /** Settles once: the whole body, `too_large`, or `aborted`. Never rejects. */
  readonly done: Promise<BodyOutcome>;
  private settle!: (outcome: BodyOutcome) => void;
  private readonly chunks: ArrayBuffer[] = [];
  private size = 0;

  constructor(res: HttpResponse, maxBytes: number) {
    this.done = new Promise((resolve) => (this.settle = resolve));
    res.onData((chunk, isLast) => {
      this.size += chunk.byteLength;
      // uWS reuses the chunk's memory after this callback returns: copy it.
      if (this.size <= maxBytes) this.chunks.push(chunk.slice(0));
      if (isLast) this.settle(this.size <= maxBytes ? { kind: 'complete', body: this.concat() } : { kind: 'too_large' });
    });
  }

  private concat(): Uint8Array<ArrayBuffer> {
    const body = new Uint8Array(this.size);
    let at = 0;
    for (const chunk of this.chunks) {
      body.set(new Uint8Array(chunk), at);
      at += chunk.byteLength;
    }
    return body;
  }

  /** The client went away: settles `aborted` unless the body was complete. */
  abort(): void {
    this.settle({ kind: 'aborted' });
  }
}

/** How serveFetch answers what it does not pass to the handler, and what it adds. */
export interface ServeFetchOptions {
  /** The largest body read (for the 413 answer's text). */
  maxBodyBytes: number;
  /** The answer to a request the handler never sees: a body over the limit (413), a method Fetch forbids (405). */
  reject: (status: 405 | 413, message: string) => Response;
  /** Added to every response, e.g. the X-RateLimit-* headers of the route. */
  headers?: HeaderMap;
  /**
   * Answers a whole body without a Request or a Response being made (they
   * cost more than many a handler), or returns undefined to leave it to
   * `handler`.
   */
  answerDirectly?: (body: Uint8Array<ArrayBuffer>) => Promise<PlainAnswer | undefined>;
}

/** An answer written as it is: status, headers, and a body or none. */
export interface PlainAnswer {
  status: number;
  headers: HeaderMap;
  body: string | null;
}

/**
 * Runs `handler` for the request read by `head` and `body`, and writes its
 * response to `exchange`. Resolves with the status sent (for the request
 * log), or `aborted` when the client went away first. If the client goes
 * away meanwhile, the Request's signal aborts and a streamed body is
 * cancelled.
 */
export async function serveFetch(
  exchange: Exchange,
  head: RequestHead,
  body: RequestBody,
  handler: (request: Request) => Promise<Response>,
  options: ServeFetchOptions,
): Promise<string> {
  const send = (response: Response): Promise<string> => sendWebResponse(exchange, response, options.headers, head.method === 'HEAD');
  exchange.onAbort(() => body.abort());
  if (exchange.aborted) body.abort(); // before the handler was reached: onAbort came too late
  const outcome = await body.done;
  if (outcome.kind === 'aborted' || exchange.aborted) return 'aborted';
  if (outcome.kind === 'too_large') {
    return send(options.reject(413, `Request body larger than ${options.maxBodyBytes} bytes`));
  }
  const direct = await options.answerDirectly?.(outcome.body);
  if (direct !== undefined) return sendPlainAnswer(exchange, direct, options.headers);
  // Made only here: an AbortController is dear, and a direct answer needs none.
  const controller = new AbortController();
  exchange.onAbort(() => controller.abort());
  if (exchange.aborted) controller.abort();
  let request: Request;
  try {
    request = toWebRequest(head, outcome.body, controller.signal);
  } catch {
    return send(options.reject(405, `Method ${head.method} is not allowed`));
  }
  return send(await handler(request));
}

/** A Web Request for `head` and `body`; throws TypeError for a method Fetch forbids (CONNECT, TRACE). */
function toWebRequest(head: RequestHead, body: Uint8Array<ArrayBuffer>, signal: AbortSignal): Request {
  let url: URL;
  try {
    url = new URL(head.target, `http://${head.headers.get('host') ?? 'localhost'}`);
  } catch {
    url = new URL(head.target, 'http://localhost');
  }
  const bodyless = head.method === 'GET' || head.method === 'HEAD';
  return new Request(url, { method: head.method, headers: head.headers, body: bodyless ? null : body, signal });
}

/** Writes a status line and headers (`own`, less the framing ones the front writes, then `extra`). */
function writeHead(res: HttpResponse, status: number, statusText: string, own: Iterable<[string, string]>, extra: HeaderMap): void {
  res.writeStatus(`${status} ${statusText || STATUS_CODES[status] || ''}`.trimEnd());
  for (const [name, value] of own) if (!FRAMING_HEADERS.has(name.toLowerCase())) res.writeHeader(name, value);
  for (const [name, value] of Object.entries(extra)) res.writeHeader(name, value);
}

/** Writes `answer` to `exchange` (with the `extra` headers); returns its status, or `aborted`. */
function sendPlainAnswer(exchange: Exchange, answer: PlainAnswer, extra: HeaderMap = {}): string {
  exchange.cork(() => {
    writeHead(exchange.res, answer.status, '', Object.entries(answer.headers), extra);
    exchange.end(Buffer.from(answer.body ?? ''));
  });
  return exchange.aborted ? 'aborted' : String(answer.status);
}

/**
 * Writes `response` to `exchange`: status, headers (its own and `extra`),
 * body. A `text/event-stream` body is streamed; any other is read whole and
 * sent with a Content-Length; none at all is sent when `headOnly` (the
 * answer to a HEAD request). Resolves with the status, or `aborted`.
 */
async function sendWebResponse(exchange: Exchange, response: Response, extra: HeaderMap = {}, headOnly = false): Promise<string> {
  const { res } = exchange;
  const status = String(response.status);
  const writeResponseHead = (): void => writeHead(res, response.status, response.statusText, response.headers, extra);
  const contentType = response.headers.get('content-type') ?? '';
  if (headOnly) {
    await response.body?.cancel();
    exchange.cork(() => {
      writeResponseHead();
      exchange.endWithoutBody();
    });
  } else if (response.body === null || !/^text\/event-stream\b/i.test(contentType)) {
    const payload = Buffer.from(await response.arrayBuffer());
    exchange.cork(() => {
      writeResponseHead();
      exchange.end(payload);
    });
  } else {
    await pipeStream(exchange, response.body.getReader(), writeResponseHead);
  }
  return exchange.aborted ? 'aborted' : status;
}

/**
 * Copies `reader` to the response chunk by chunk. The head goes out with
 * the first chunk (one packet). After a write the socket could not take at
 * once, no more is read until uWS reports it writable again, so a slow
 * client holds back the handler instead of growing a buffer here.
 */
async function pipeStream(exchange: Exchange, reader: ReadableStreamDefaultReader<Uint8Array>, writeHead: () => void): Promise<void> {
  const { res } = exchange;
  let wake: (() => void) | undefined;
  const resume = (): void => {
    const waiting = wake;
    wake = undefined;
    waiting?.();
  };
  exchange.onAbort(() => {
    reader.cancel().catch(() => {});
    resume();
  });
  // One handler for the whole stream: uWS puts back the handler it is running
  // when that returns, so one registered from within it (as the next write
  // would, through the microtasks it runs) would be lost.
  res.onWritable(() => {
    resume();
    return true;
  });
  let headWritten = false;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch {
      // The handler's stream broke: cut the connection so the client sees a truncated response.
      if (!exchange.aborted) res.close();
      return;
    }
    if (exchange.aborted) {
      reader.cancel().catch(() => {}); // onAbort cannot cancel it if the client left before this stream began
      return;
    }
    if (chunk.done) {
      exchange.cork(() => {
        if (!headWritten) writeHead();
        exchange.endStream();
      });
      return;
    }
    if (chunk.value.byteLength === 0) continue; // nothing to send
    let flowing = true;
    exchange.cork(() => {
      if (!headWritten) writeHead();
      headWritten = true;
      flowing = exchange.writeChunk(chunk.value);
    });
    if (!flowing && !exchange.aborted) await new Promise<void>((resolve) => (wake = resolve));
  }
}
