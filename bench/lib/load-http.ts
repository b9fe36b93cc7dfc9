// A lean HTTP/1.1 client for bench/load/load.ts: one keep-alive connection per
// caller, from the caller's own loopback address, one request at a time.
// undici's fetch costs the harness more CPU per request than the server
// spends answering it; on a 2-core machine shared with the server that
// would be measured as the server's latency. Bodies are read whole, with
// Content-Length or chunked encoding; `onData` sees a chunked body (a v2
// stream) as it arrives.
import { connect, type Socket } from 'node:net';

export interface HttpResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** The body of a POST (UTF-8); none by default. */
  body?: string;
  timeoutMs: number;
  /** Called with the response head as soon as it is read. */
  onHead?: (status: number, headers: Map<string, string>) => void;
  /** Called with each piece of the body as it arrives (latin1: for spotting markers, not for decoding). */
  onData?: (text: string) => void;
}

interface Pending {
  options: RequestOptions;
  resolve: (response: HttpResponse) => void;
  reject: (error: Error) => void;
  status?: number;
  headers?: Map<string, string>;
  chunked: boolean;
  /** Body bytes still expected (Content-Length); -1 while chunked or unknown. */
  remaining: number;
  body: Buffer[];
  timer: NodeJS.Timeout;
}

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

export class CallerConnection {
  private socket: Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Pending | null = null;

  constructor(
    private readonly port: number,
    /** The caller's own address, which the server sees as its peer. */
    readonly localAddress: string,
    /** Told when a connection it opened is established: when connect() was called (performance.now()) and how long it took. */
    private readonly onConnected?: (startedAt: number, ms: number) => void,
  ) {}

  /** One request on the caller's connection (opened, or re-opened, as needed). */
  request(method: string, path: string, options: RequestOptions): Promise<HttpResponse> {
    if (this.pending !== null) return Promise.reject(new Error('one request at a time'));
    const socket = this.usableSocket();
    const extra = Object.entries(options.headers ?? {})
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    const body = options.body ?? '';
    const length = method === 'POST' ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`${method} ${path}: no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
      this.pending = { options, resolve, reject, chunked: false, remaining: -1, body: [], timer };
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${this.port}\r\n${length}${extra}\r\n${body}`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private usableSocket(): Socket {
    if (this.socket !== null && !this.socket.destroyed && this.socket.writable) return this.socket;
    const startedAt = performance.now();
    const socket = connect({ host: '127.0.0.1', port: this.port, localAddress: this.localAddress });
    socket.setNoDelay(true);
    if (this.onConnected !== undefined) socket.once('connect', () => this.onConnected?.(startedAt, performance.now() - startedAt));
    this.buffer = Buffer.alloc(0);
    // Events of a connection this caller has since replaced are ignored.
    socket.on('data', (chunk: Buffer) => {
      if (this.socket !== socket) return;
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.parse();
    });
    socket.on('error', (error) => {
      if (this.socket === socket) this.fail(error);
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      const p = this.pending;
      // A body without length or chunks ends with the connection.
      if (p?.status !== undefined && !p.chunked && p.remaining < 0) this.done();
      else this.fail(new Error('connection closed before the answer was complete'));
      this.socket = null;
    });
    this.socket = socket;
    return socket;
  }

  private parse(): void {
    for (;;) {
      const p = this.pending;
      if (p === null) return;
      if (p.status === undefined) {
        const end = this.buffer.indexOf(HEAD_END);
        if (end < 0) return;
        const [statusLine = '', ...lines] = this.buffer.subarray(0, end).toString('latin1').split('\r\n');
        this.buffer = this.buffer.subarray(end + 4);
        p.status = Number(statusLine.split(' ')[1]);
        p.headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
        p.chunked = /chunked/i.test(p.headers.get('transfer-encoding') ?? '');
        const length = p.headers.get('content-length');
        p.remaining = length === undefined ? -1 : Number(length);
        p.options.onHead?.(p.status, p.headers);
        if (!p.chunked && p.remaining <= 0 && length !== undefined) return this.done();
        continue;
      }
      if (p.chunked) {
        const lineEnd = this.buffer.indexOf(CRLF);
        if (lineEnd < 0) return;
        const size = Number.parseInt(this.buffer.subarray(0, lineEnd).toString('latin1'), 16);
        if (this.buffer.length < lineEnd + 2 + size + 2) return;
        const piece = this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size);
        this.buffer = this.buffer.subarray(lineEnd + 2 + size + 2);
        if (size === 0) return this.done();
        p.body.push(piece);
        p.options.onData?.(piece.toString('latin1'));
        continue;
      }
      if (this.buffer.length === 0) return;
      const take = p.remaining < 0 ? this.buffer.length : Math.min(p.remaining, this.buffer.length);
      const piece = this.buffer.subarray(0, take);
      this.buffer = this.buffer.subarray(take);
      p.body.push(piece);
      p.options.onData?.(piece.toString('latin1'));
      if (p.remaining >= 0) {
        p.remaining -= take;
        if (p.remaining === 0) return this.done();
      }
    }
  }

  private done(): void {
    const p = this.pending;
    if (p === null) return;
    this.pending = null;
    clearTimeout(p.timer);
    if (/close/i.test(p.headers?.get('connection') ?? '')) this.close();
    p.resolve({ status: p.status!, headers: p.headers!, body: Buffer.concat(p.body).toString('utf8') });
  }

  private fail(error: Error): void {
    const p = this.pending;
    this.close();
    if (p === null) return;
    this.pending = null;
    clearTimeout(p.timer);
    p.reject(error);
  }
}
