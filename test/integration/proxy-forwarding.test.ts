// The caller behind trusted proxies, through the real server: requests on
// raw sockets from chosen loopback addresses, so that repeated header lines
// reach the server as separate lines, as HAProxy's `option forwardfor`
// sends them. The scan target (the answer's `ip`, the request log's `ip`)
// must always be the first untrusted hop from the right.
import { connect } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import type { Config } from '../../src/config/config.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { eventually } from '../helpers/eventually.js';
import { FakeScanner } from '../helpers/fake-scanner.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const PROXY = '127.0.0.210';
const INNER_PROXY = '127.0.0.211';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(trustProxyHeader: Config['trustProxyHeader']): Promise<TestServer> {
  const started = await startTestServer({ trustProxy: [`${PROXY}/32`, INNER_PROXY], trustProxyHeader }, { scanner: new FakeScanner({ endAtOnce: true }) });
  cleanups.push(() => started.close());
  return started;
}

/** The body of a chunked message, or null until its last chunk has arrived. */
function dechunk(text: string): string | null {
  let body = '';
  for (let at = 0; ; ) {
    const lineEnd = text.indexOf('\r\n', at);
    if (lineEnd === -1) return null;
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (size === 0) return body;
    if (text.length < lineEnd + 2 + size + 2) return null;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Sends one request from `caller` with `lines` as header lines, exactly as
 * written, and resolves with the status and body of its answer.
 */
function rawRequest(
  caller: string,
  url: string,
  method: string,
  lines: readonly string[],
  body = '',
  extra: readonly string[] = [],
): Promise<{ status: number; body: string }> {
  const { port, pathname } = new URL(url);
  const head = [`${method} ${pathname} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...lines, ...extra, `Content-Length: ${Buffer.byteLength(body)}`, '', ''].join(
    '\r\n',
  );
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: caller });
    let received = '';
    socket.setEncoding('latin1');
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no whole answer to ${method} ${pathname} in 10 s: ${received}`)));
    socket.on('error', reject);
    socket.on('data', (data: string) => {
      received += data;
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd === -1) return;
      const answerHead = received.slice(0, headEnd);
      const rest = received.slice(headEnd + 4);
      const length = /^content-length: *(\d+)$/im.exec(answerHead);
      const answerBody = length !== null ? (rest.length >= Number(length[1]) ? rest.slice(0, Number(length[1])) : null) : dechunk(rest);
      if (answerBody === null) return;
      socket.destroy();
      resolve({ status: Number(answerHead.split(' ')[1]), body: Buffer.from(answerBody, 'latin1').toString('utf8') });
    });
    socket.write(head + body);
  });
}

/** POSTs /v1/fast from `caller` with `lines`; the scan target it was answered for. */
async function target(s: TestServer, caller: string, lines: readonly string[]): Promise<string> {
  const answer = await rawRequest(caller, `${s.url}/v1/fast`, 'POST', lines);
  const body = JSON.parse(answer.body) as { ip: string };
  validateResponse('POST', '/v1/fast', answer.status, body);
  expect(answer.status).toBe(200);
  return body.ip;
}

/** Sends every case's request in turn; checks each answer's `ip`, then the request log's. */
async function expectTargets(s: TestServer, cases: readonly [caller: string, lines: string[], expected: string][]): Promise<void> {
  const targets = [];
  for (const [caller, lines] of cases) targets.push(await target(s, caller, lines));
  const expected = cases.map(([, , ip]) => ip);
  expect(targets).toEqual(expected);
  const logged = () => s.logs.filter((l) => l.event === 'request' && l.path === '/v1/fast').map((l) => l.ip);
  await eventually(() => logged().length === cases.length, 5000, 'a request log line per request');
  expect(logged()).toEqual(expected);
}

describe('behind proxies that write X-Forwarded-For (the default)', () => {
  it('walks every line from the right, skipping trusted proxies; never passes an untrusted or unusable hop', async () => {
    const s = await server('x-forwarded-for');
    await expectTargets(s, [
      // HAProxy `option forwardfor`: the client's own line first, the proxy's line after it.
      [PROXY, ['X-Forwarded-For: 127.0.0.220', 'X-Forwarded-For: 127.0.0.221'], '127.0.0.221'],
      [PROXY, ['x-forwarded-for: 127.0.0.220, 127.0.0.229', 'Accept: */*', 'X-FORWARDED-FOR: 127.0.0.222'], '127.0.0.222'],
      // nginx `$proxy_add_x_forwarded_for`: appended to the client's line.
      [PROXY, ['X-Forwarded-For: 127.0.0.220, 127.0.0.223'], '127.0.0.223'],
      // Through two trusted proxies, each adding a line.
      [PROXY, ['X-Forwarded-For: 127.0.0.220', 'X-Forwarded-For: 127.0.0.224', `X-Forwarded-For: ${INNER_PROXY}`], '127.0.0.224'],
      [PROXY, ['X-Forwarded-For: 127.0.0.220, [::ffff:127.0.0.225]:4711', `X-Forwarded-For: ${INNER_PROXY}:80`], '127.0.0.225'],
      // Every hop trusted: the leftmost.
      [PROXY, [`X-Forwarded-For: ${INNER_PROXY}`], INNER_PROXY],
      // An unusable hop ends the walk at the trusted hop that reported it.
      [PROXY, ['X-Forwarded-For: 127.0.0.220', 'X-Forwarded-For: unknown'], PROXY],
      [PROXY, ['X-Forwarded-For: 127.0.0.220, 127.1', `X-Forwarded-For: ${INNER_PROXY}`], INNER_PROXY],
      // Forwarded is not the configured header: never read.
      [PROXY, ['Forwarded: for=127.0.0.220', 'X-Forwarded-For: 127.0.0.226'], '127.0.0.226'],
      [PROXY, ['Forwarded: for=127.0.0.220'], PROXY],
      // From a peer that is not a trusted proxy, no header counts.
      ['127.0.0.227', ['X-Forwarded-For: 127.0.0.220', 'X-Forwarded-For: 127.0.0.221'], '127.0.0.227'],
    ]);
  });

  it('resolves the MCP endpoint’s caller the same way', async () => {
    const s = await server('x-forwarded-for');
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fast_scan', arguments: {} } });
    const answer = await rawRequest(PROXY, `${s.url}/mcp`, 'POST', ['X-Forwarded-For: 127.0.0.220', 'X-Forwarded-For: 127.0.0.228'], call, [
      'Content-Type: application/json',
      'Accept: application/json, text/event-stream',
    ]);
    expect(answer.status).toBe(200);
    const message = JSON.parse(answer.body.match(/^data: (.*)$/m)?.[1] ?? answer.body) as { result: { structuredContent: { ip: string } } };
    expect(message.result.structuredContent.ip).toBe('127.0.0.228');
    await eventually(() => s.logs.some((l) => l.event === 'request' && l.path === '/mcp'), 5000, 'the MCP request logged');
    expect(s.logs.filter((l) => l.event === 'request' && l.path === '/mcp').map((l) => l.ip)).toEqual(['127.0.0.228']);
  });
});

describe('behind proxies that write Forwarded (trustProxyHeader: forwarded)', () => {
  it('walks every element of every line from the right, skipping trusted proxies; never passes an untrusted or unusable hop', async () => {
    const s = await server('forwarded');
    await expectTargets(s, [
      // The client's line first, the proxy's own line after it.
      [PROXY, ['Forwarded: for=127.0.0.220', 'Forwarded: for="127.0.0.221:4711";proto=http'], '127.0.0.221'],
      [PROXY, ['Forwarded: for=127.0.0.220', 'forwarded: for="[::1]:4711";by=127.0.0.210'], '::1'],
      [PROXY, ['Forwarded: for=127.0.0.220, For="[::ffff:127.0.0.222]:_p"'], '127.0.0.222'],
      // Through two trusted proxies.
      [PROXY, ['Forwarded: for=127.0.0.220, for=127.0.0.223', `Forwarded: for="${INNER_PROXY}:80"`], '127.0.0.223'],
      [PROXY, [`Forwarded: for=${INNER_PROXY}`], INNER_PROXY],
      // Unusable hops (obfuscated, unknown, no for=, broken grammar) end the walk at the trusted hop that reported them.
      [PROXY, ['Forwarded: for=127.0.0.220', 'Forwarded: for=_hidden'], PROXY],
      [PROXY, ['Forwarded: for=127.0.0.220', `Forwarded: for=unknown, for=${INNER_PROXY}`], INNER_PROXY],
      [PROXY, ['Forwarded: for=127.0.0.220, proto=https'], PROXY],
      [PROXY, ['Forwarded: for=127.0.0.220, for="127.0.0.224'], PROXY],
      [PROXY, ['Forwarded: for="', 'Forwarded: for=127.0.0.224'], '127.0.0.224'],
      // X-Forwarded-For is not the configured header: never read.
      [PROXY, ['X-Forwarded-For: 127.0.0.220', 'Forwarded: for=127.0.0.225'], '127.0.0.225'],
      [PROXY, ['X-Forwarded-For: 127.0.0.220'], PROXY],
      // From a peer that is not a trusted proxy, no header counts.
      ['127.0.0.226', ['Forwarded: for=127.0.0.220', 'Forwarded: for=127.0.0.221'], '127.0.0.226'],
    ]);
  });
});
