// Hostile and broken HTTP/1.x on raw sockets against the real server, on
// the front the project runs (SELFSCAN_HTTP_SERVER): each shape gets its
// status, or the close uWebSockets.js forces (at once, or at its idle
// timeout), in bounded time; and a normal request on a fresh
// connection is answered after each. HEAD of a GET resource carries GET's
// headers without the body; pipelined requests are answered in order. After
// a framing error nothing that followed the head is read as a request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callerFetch } from '../../support/callers.js';
import { IDLE_CLOSE_MS, type Outcome, outcomeOn, PROMPT_MS, request, SHAPES, type Shape } from '../../support/hostile-shapes.js';
import { rawExchange } from '../../support/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer();
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.close();
});

/** A normal GET on a fresh connection is answered promptly. */
async function stillServes(): Promise<void> {
  const normal = await rawExchange(port, request('GET /openapi.json HTTP/1.1'), { answers: 1 });
  expect(normal.statuses).toEqual([200]);
  expect(normal.ms).toBeLessThan(PROMPT_MS);
}

describe.concurrent('hostile HTTP', () => {
  it.each(SHAPES)('$name', async (shape) => {
    const { bytes } = shape;
    const outcome = outcomeOn(shape, server.server.httpServer);
    if ('statuses' in outcome) {
      const got = await rawExchange(port, bytes, { answers: outcome.statuses.length, waitMs: PROMPT_MS * 2, settleMs: 200 });
      expect(got.statuses).toEqual(outcome.statuses);
      expect(got.ms).toBeLessThan(PROMPT_MS);
      expect(got.closed).toBe(outcome.close);
    } else {
      const got = await rawExchange(port, bytes, { waitMs: IDLE_CLOSE_MS + 2000 });
      expect(got.statuses).toEqual([]);
      expect(got.closed).toBe(true);
      expect(got.ms).toBeLessThan('closeAtOnce' in outcome ? PROMPT_MS : IDLE_CLOSE_MS);
    }
    await stillServes();
  });

  it("answers HEAD with GET's status and headers and no body", async () => {
    const get = await rawExchange(port, request('GET /openapi.json HTTP/1.1'), { answers: 1, settleMs: 300 });
    const head = await rawExchange(port, request('HEAD /openapi.json HTTP/1.1') + request('GET /nope HTTP/1.1'), { answers: 2, settleMs: 300 });
    const headersOf = (text: string): string[] =>
      text
        .split('\r\n\r\n')[0]!
        .split('\r\n')
        .filter((line) => !line.startsWith('Date:'))
        .sort();
    expect(headersOf(head.text)).toEqual(headersOf(get.text));
    // No body: the next pipelined answer follows the head directly.
    expect(head.text.split('\r\n\r\n')[1]).toMatch(/^HTTP\/1\.1 404 /);
    expect(head.statuses).toEqual([200, 404]);
  });

  it('answers ten pipelined requests, in order, on one connection', async () => {
    const paths = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? '/openapi.json' : `/nope-${i}`));
    const got = await rawExchange(port, paths.map((path) => request(`GET ${path} HTTP/1.1`)).join(''), { answers: 10, settleMs: 200 });
    expect(got.statuses).toEqual(paths.map((path) => (path === '/openapi.json' ? 200 : 404)));
    const notFound = [...got.text.matchAll(/no such endpoint: (\/nope-\d+)/g)].map((match) => match[1]);
    expect(notFound).toEqual(paths.filter((path) => path !== '/openapi.json'));
    expect(got.closed).toBe(false);
  });
});

/**
 * A request whose framing is refused, followed in the same write by a poll
 * and a deep scan start that would run if the bytes after its head were
 * read (RFC 9112 §6.3: the server answers 400 and closes the connection):
 * its outcome is the one answer, a JSON Error, then EOF, or a close without
 * an answer. `from`: each its own caller, so its scans are its own.
 */
const HOST = 'Host: selfscan.test';
const SMUGGLED = request('GET /v1/deep HTTP/1.1') + request('POST /v1/deep HTTP/1.1', [HOST, 'Content-Length: 0']);
const behind = (headers: string[], body: string): string => request('POST /v1/fast HTTP/1.1', [HOST, ...headers], body) + SMUGGLED;
const refused400: Outcome = { statuses: [400], close: true };

const SMUGGLED_SHAPES: (Shape & { from: string })[] = [
  { name: 'Content-Length 5 and 6', from: '127.0.0.41', bytes: behind(['Content-Length: 5', 'Content-Length: 6'], 'hello'), outcome: refused400 },
  {
    // uWS's own parser refuses both headers together: it closes before any route sees the request, without an answer.
    name: 'Content-Length beside Transfer-Encoding: chunked',
    from: '127.0.0.42',
    bytes: behind(['Content-Length: 5', 'Transfer-Encoding: chunked'], '0\r\n\r\n'),
    outcome: { closeAtOnce: true },
    node: refused400,
  },
  {
    name: 'Transfer-Encoding whose final coding is not chunked',
    from: '127.0.0.43',
    bytes: behind(['Transfer-Encoding: chunked, identity'], '0\r\n\r\n'),
    outcome: refused400,
  },
];

/** The one whole answer `text` holds: its status, its body; throws if anything follows it. */
function onlyAnswer(text: string): { status: number; body: string } {
  const headEnd = text.indexOf('\r\n\r\n');
  expect(headEnd).toBeGreaterThan(0);
  const head = text.slice(0, headEnd);
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
  expect(Number.isInteger(length)).toBe(true);
  expect(text.length).toBe(headEnd + 4 + length); // nothing after the answer: no second response, no stray bytes
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), body: text.slice(headEnd + 4) };
}

describe.concurrent('requests smuggled behind a framing error, in one write', () => {
  it.each(SMUGGLED_SHAPES)('$name: one answer or none, then EOF; nothing behind it runs', async (shape) => {
    const outcome = outcomeOn(shape, server.server.httpServer);
    // No `answers`: it waits for the close (or for 2 s, which fails the test).
    const got = await rawExchange(port, shape.bytes, { from: shape.from, waitMs: PROMPT_MS * 2 });
    expect(got.closed).toBe(true);
    expect(got.reset).toBe(false); // an orderly EOF, after the whole answer
    expect(got.ms).toBeLessThan(PROMPT_MS);
    if ('statuses' in outcome) {
      const answer = onlyAnswer(got.text);
      expect([answer.status]).toEqual(outcome.statuses);
      expect(got.text).toMatch(/\r\nContent-Type: application\/json\r\n/i);
      expect(JSON.parse(answer.body)).toEqual({ error: 'bad_request', reason: expect.any(String) });
      // uWS closes only after a body that does not fit its 16 KiB cork buffer, so there it is padded; Node's front sends the JSON alone.
      if (server.server.httpServer === 'uws') expect(answer.body.length).toBeGreaterThanOrEqual(16 * 1024);
      else expect(answer.body).toBe(JSON.stringify(JSON.parse(answer.body)));
    } else {
      expect(got.text).toBe('');
    }

    // Neither the refused POST nor the smuggled one started a scan.
    const fetch = callerFetch(shape.from);
    for (const type of ['fast', 'deep']) {
      const response = await fetch(`${server.url}/v1/${type}`);
      expect(await response.json()).toEqual({ ip: shape.from, scan_type: type, status: 'none' });
    }
    expect(server.logs.filter((line) => line.ip === shape.from && (line.event === 'scan_queued' || line.event === 'scan_joined'))).toEqual([]);
    await stillServes();
  });
});
