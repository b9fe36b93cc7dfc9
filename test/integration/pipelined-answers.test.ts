// Pipelined requests on raw sockets against the real server: every request
// sent before the answer to the one in front of it is answered, complete
// and in order, whatever that answer is (about 100 bytes; 72 KiB and over
// 100 KiB ones that a client which does not read keeps from going out at
// once; a v2 stream), and the connection stays usable. uWebSockets.js
// closes a connection whose next request it parses while an answer is
// pending, so these fail when an answer is left pending while the next
// request is read; two cases pin the ones it still closes, which Node's
// front answers in order.
import { connect, createServer, type Server, type Socket } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openApiJson } from '../../src/api/openapi.js';
import { DEFAULT_CONFIG } from '../../src/config/config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer({ sseKeepAliveSeconds: 0.2 });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: selfscan.test\r\n\r\n`;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The whole responses at the start of `bytes` (latin1), one after the
 * other, framed by Content-Length or chunked encoding, and where the
 * unparsed rest begins.
 */
function answersIn(bytes: Buffer): { answers: Answer[]; rest: number } {
  const text = bytes.toString('latin1');
  const answers: Answer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return { answers, rest: at };
    const [statusLine, ...lines] = text.slice(at, headEnd).split('\r\n');
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(statusLine ?? '');
    if (status === null) throw new Error(`not a status line at ${at}: ${JSON.stringify(text.slice(at, at + 80))}`);
    const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    let bodyAt = headEnd + 4;
    let body = '';
    if (headers['transfer-encoding'] === 'chunked') {
      for (;;) {
        const sizeEnd = text.indexOf('\r\n', bodyAt);
        if (sizeEnd < 0) return { answers, rest: at };
        const size = Number.parseInt(text.slice(bodyAt, sizeEnd), 16);
        if (text.length < sizeEnd + 2 + size + 2) return { answers, rest: at };
        body += text.slice(sizeEnd + 2, sizeEnd + 2 + size);
        bodyAt = sizeEnd + 2 + size + 2;
        if (size === 0) break;
      }
    } else {
      const length = Number(headers['content-length'] ?? 0);
      if (text.length < bodyAt + length) return { answers, rest: at };
      body = text.slice(bodyAt, bodyAt + length);
      bodyAt += length;
    }
    answers.push({ status: Number(status[1]), headers, body: Buffer.from(body, 'latin1').toString('utf8') });
    at = bodyAt;
  }
}

/** A raw connection that keeps what it receives and says when it closed. */
class RawConnection {
  readonly socket: Socket;
  received = Buffer.alloc(0);
  closed = false;
  private waiters: (() => void)[] = [];

  constructor(localAddress = '127.0.0.1', serverPort = port) {
    this.socket = connect({ host: '127.0.0.1', port: serverPort, localAddress });
    this.socket.on('data', (chunk) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.wake();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on('error', () => {});
  }

  private wake(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  get answers(): Answer[] {
    return answersIn(this.received).answers;
  }

  /** Waits until `count` whole answers have arrived; rejects if the server closes first or `ms` pass. */
  async until(count: number, ms = 20_000): Promise<Answer[]> {
    const deadline = Date.now() + ms;
    while (this.answers.length < count) {
      if (this.closed) throw new Error(`closed after ${this.answers.length} of ${count} answers (${this.received.length} bytes)`);
      if (Date.now() > deadline) throw new Error(`${this.answers.length} of ${count} answers in ${ms} ms (${this.received.length} bytes)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.answers;
  }

  close(): void {
    this.socket.destroy();
  }
}

const notFound = (path: string): string => `no such endpoint: ${path}`;

/** `count` listeners on `host`, from port `first` up, each closing what it accepts. */
async function listenOn(host: string, first: number, count: number): Promise<Server[]> {
  return Promise.all(
    Array.from({ length: count }, (_, i) => {
      const listener = createServer((socket) => {
        socket.on('error', () => {});
        socket.destroy();
      });
      return new Promise<Server>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(first + i, host, () => resolve(listener));
      });
    }),
  );
}

/** Starts a deep scan of `caller` and returns its complete result's body, as GET /v1/deep answers it. */
async function finishedDeepScan(caller: string): Promise<string> {
  const ask = async (head: string): Promise<Answer> => {
    const connection = new RawConnection(caller);
    try {
      connection.socket.write(head);
      return (await connection.until(1, 60_000))[0]!;
    } finally {
      connection.close();
    }
  };
  expect((await ask('POST /v1/deep HTTP/1.1\r\nHost: selfscan.test\r\nContent-Length: 0\r\n\r\n')).status).toBe(200);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await ask(get('/v1/deep'));
    const { status } = JSON.parse(answer.body) as { status: string };
    if (status === 'complete') return answer.body;
    if (status !== 'queued' && status !== 'running') throw new Error(`the deep scan of ${caller} ended ${status}`);
    if (Date.now() > deadline) throw new Error(`the deep scan of ${caller} still ${status} after 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Sends one more GET on `connection` and expects its 404 as answer number `count`, the connection still open. */
async function expectStillServing(connection: RawConnection, path: string, count: number): Promise<void> {
  connection.socket.write(get(path));
  expect((await connection.until(count))[count - 1]).toMatchObject({ status: 404 });
  expect(connection.closed).toBe(false);
}

/**
 * Sends `count` GETs of `path` and a GET of a missing path in one write on
 * `connection`, which reads nothing for 1.5 s (the server answers all it
 * can meanwhile), then reads: every answer is `body`, the 404 comes last,
 * and the connection still serves.
 */
async function expectAnsweredWithoutReading(connection: RawConnection, path: string, count: number, body: string): Promise<void> {
  try {
    connection.socket.pause();
    connection.socket.write(get(path).repeat(count) + get('/nope-after'));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    connection.socket.resume();
    const answers = await connection.until(count + 1);
    expect(answers).toHaveLength(count + 1);
    for (const answer of answers.slice(0, count)) {
      expect(answer.status).toBe(200);
      expect(answer.body).toBe(body);
    }
    expect(answers[count]).toMatchObject({ status: 404 });
    expect(JSON.parse(answers[count]!.body).reason).toBe(notFound('/nope-after'));
    await expectStillServing(connection, '/nope-again', count + 2);
  } finally {
    connection.close();
  }
}

describe('pipelined requests', () => {
  it('answers three requests with answers of about 100 bytes, in order, and keeps the connection', async () => {
    const connection = new RawConnection();
    try {
      const paths = ['/nope-1', '/nope-2', '/nope-3'];
      connection.socket.write(paths.map(get).join(''));
      const answers = await connection.until(3);
      expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
      for (const [i, answer] of answers.entries()) {
        expect(answer.body.length).toBeLessThan(200);
        expect(JSON.parse(answer.body).reason).toBe(notFound(paths[i]!));
      }
      await expectStillServing(connection, '/nope-4', 4);
    } finally {
      connection.close();
    }
  });

  it('answers a GET behind 72 KiB answers that a client which does not read keeps from going out at once', async () => {
    // 110 OpenAPI documents (72 KiB each, not compressed: no Accept-Encoding),
    // about 8 MiB, more than the socket buffers of both ends take while the
    // client reads nothing: some of them cannot be written when answered.
    const large = 110;
    const document = Buffer.from(openApiJson);
    expect(document.length).toBeGreaterThan(64 * 1024);
    await expectAnsweredWithoutReading(new RawConnection(), '/openapi.json', large, openApiJson);
  });

  it('answers a GET behind answers of over 100 KiB (a deep result with 500 open ports) that a client which does not read keeps from going out at once', async () => {
    const caller = '127.0.0.63';
    const listeners = await listenOn(caller, 30_000, 500);
    try {
      const result = await finishedDeepScan(caller);
      expect(result.length).toBeGreaterThan(100 * 1024);
      console.log(`[pipelining] the deep result is ${result.length} bytes`);
      // 80 of them, about 9 MiB, more than both ends' socket buffers take while the client reads nothing.
      await expectAnsweredWithoutReading(new RawConnection(caller), '/v1/deep', 80, result);
    } finally {
      await Promise.all(listeners.map((listener) => new Promise((resolve) => listener.close(resolve))));
    }
  });

  it('answers a GET sent behind a v2 stream after the stream ends, complete and in order', async () => {
    const connection = new RawConnection('127.0.0.61');
    try {
      connection.socket.write(get('/v2/fast'));
      await new Promise<void>((resolve) => connection.socket.once('data', () => resolve())); // the stream is open
      connection.socket.write(get('/nope-behind-stream'));
      const [stream, after] = await connection.until(2, 60_000);
      expect(stream!.status).toBe(200);
      expect(stream!.headers['content-type']).toBe('text/event-stream');
      expect(stream!.body).toContain(': stream open');
      expect(stream!.body).toMatch(/event: scan:complete\ndata: \{.*\}\n\n$/);
      expect(after!.status).toBe(404);
      expect(JSON.parse(after!.body).reason).toBe(notFound('/nope-behind-stream'));
      expect(answersIn(connection.received).rest).toBe(connection.received.length); // nothing else came
      await expectStillServing(connection, '/nope-again', 3);
    } finally {
      connection.close();
    }
  });

  it('answers a request in the same read as a v2 stream request after the stream on the Node front; uWS closes the connection (as the README says)', async () => {
    const connection = new RawConnection('127.0.0.62');
    try {
      connection.socket.write(get('/v2/fast') + get('/nope-same-read'));
      if (server.server.httpServer === 'uws') {
        // uWS parses the whole read at once and closes the connection at the
        // second request, the stream still pending; no handler of ours sees it.
        await expect(connection.until(1, 5000)).rejects.toThrow(/closed after 0 of 1 answers/);
        return;
      }
      const [stream, after] = await connection.until(2, 60_000);
      expect(stream!.body).toMatch(/event: scan:complete\ndata: \{.*\}\n\n$/);
      expect(after!.status).toBe(404);
      expect(JSON.parse(after!.body).reason).toBe(notFound('/nope-same-read'));
    } finally {
      connection.close();
    }
  });

  it('answers a request in the same read as a scan start after its 200 on the Node front; uWS closes the connection, the scan still starting (as the README says)', async () => {
    const caller = '127.0.0.65';
    const connection = new RawConnection(caller);
    try {
      connection.socket.write(`POST /v1/fast HTTP/1.1\r\nHost: selfscan.test\r\nContent-Length: 0\r\n\r\n${get('/nope-behind-post')}`);
      if (server.server.httpServer === 'uws') {
        await expect(connection.until(1, 5000)).rejects.toThrow(/closed after 0 of 1 answers/);
      } else {
        const [started, after] = await connection.until(2, 5000);
        expect(started!.status).toBe(200);
        expect(JSON.parse(started!.body)).toMatchObject({ ip: caller, scan_type: 'fast' });
        expect(after!.status).toBe(404);
      }
    } finally {
      connection.close();
    }
    const after = new RawConnection(caller);
    try {
      after.socket.write(get('/v1/fast'));
      const [answer] = await after.until(1);
      expect(['queued', 'running', 'complete']).toContain(JSON.parse(answer!.body).status);
    } finally {
      after.close();
    }
  });
});

describe('pipelined requests with the default limits on', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ limits: DEFAULT_CONFIG.limits });
  });
  afterAll(async () => {
    await limited?.close();
  });

  it('answers requests sent in one write, in order: the edge limit decides each before uWS reads the next', async () => {
    // The in-process limit's promise settles without I/O, and uWS.js runs
    // the microtasks of each handler's callback before it parses on.
    const connection = new RawConnection('127.0.0.64', Number(new URL(limited.url).port));
    try {
      const paths = ['/v1/fast', '/openapi.json', '/healthz', '/metrics', '/nope-limited'];
      connection.socket.write(paths.map(get).join(''));
      const answers = await connection.until(paths.length);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 404]);
      expect(JSON.parse(answers[0]!.body)).toMatchObject({ ip: '127.0.0.64', status: 'none' });
      expect(answers[1]!.body).toBe(openApiJson);
      const remaining = [answers[0]!, answers[1]!].map((answer) => Number(answer.headers['x-ratelimit-remaining']));
      expect(remaining[1]).toBe(remaining[0]! - 1); // each one charged, in order
      await expectStillServing(connection, '/nope-again', paths.length + 1);
    } finally {
      connection.close();
    }
  });
});
