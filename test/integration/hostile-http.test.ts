// Hostile and broken HTTP/1.x on raw sockets against the real server, on
// the front the project runs (SELFSCAN_HTTP_SERVER): each shape gets its
// status, or the close uWebSockets.js forces (at once, or at its idle
// timeout), in bounded time; and a normal request on a fresh
// connection is answered after each. HEAD of a GET resource carries GET's
// headers without the body; pipelined requests are answered in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { IDLE_CLOSE_MS, outcomeOn, PROMPT_MS, request, SHAPES } from '../../support/hostile-shapes.js';
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
