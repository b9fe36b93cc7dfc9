// The MCP endpoint against the real server on port 0, driven by the official
// SDK's client over Streamable HTTP from loopback callers: tool listing,
// polling a scan to its end, rescans, progress, the shared abuse controls,
// and requests that are not MCP at all. Every scan state a tool returns is
// also checked against the REST shape in the OpenAPI document. Last, the
// uWS fetch bridge alone: streaming with backpressure and client aborts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { CallToolResult, Client } from '@modelcontextprotocol/client';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ERROR_CODES, type ErrorCode } from '../../src/api/error-body.js';
import type { ScanType } from '../../src/api/scan-type.js';
import { Exchange } from '../../src/http/exchange.js';
import { RequestBody, readRequestHead, serveFetch } from '../../src/http/fetch-bridge.js';
import { chooseHttpFront } from '../../src/http/front-choice.js';
import type { HttpApp } from '../../src/http/http-front.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { connectMcp } from '../../support/mcp-client.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { startTestServer, type TestServer, testHttpServer } from '../helpers/test-server.js';

type Output = Record<string, unknown> & { status?: string; message: string };

/** The tool result's structuredContent, checked against its text mirror and the REST shape of the same state. */
function output(result: CallToolResult, scanType: ScanType): Output {
  const structured = result.structuredContent as Output;
  expect(result.content).toEqual([{ type: 'text', text: JSON.stringify(structured) }]);
  expect(structured.message).toMatch(/^[A-Z].*\.$/);
  const { message: _message, poll_after_seconds: _poll, ...rest } = structured;
  if (result.isError) validateResponse('POST', `/v1/${scanType}`, Number.parseInt(ERROR_CODES[rest.error as ErrorCode].status, 10), rest);
  else validateResponse('GET', `/v1/${scanType}`, 200, rest);
  return structured;
}

async function call(client: Client, scanType: ScanType, args: Record<string, unknown> = {}): Promise<Output> {
  const result = await client.callTool({ name: `${scanType}_scan`, arguments: args });
  return output(result, scanType);
}

/** Calls the tool until the scan is over, as an agent would (without the wait). */
async function pollTool(client: Client, scanType: ScanType, timeoutMs = 30_000): Promise<Output> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await call(client, scanType);
    if (state.status !== 'queued' && state.status !== 'running') return state;
    expect(state.poll_after_seconds).toBeGreaterThanOrEqual(1);
    expect(state.poll_after_seconds).toBeLessThanOrEqual(30);
    if (Date.now() > deadline) throw new Error(`${scanType} scan still ${state.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The paths in `schema` where `type` is an array. */
function typeArrays(schema: unknown, path: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  return Object.entries(schema).flatMap(([key, value]) => (key === 'type' && Array.isArray(value) ? [path] : typeArrays(value, `${path}.${key}`)));
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

const queuedFor = (server: TestServer, ip: string) => server.logs.filter((l) => l.event === 'scan_queued' && l.ip === ip);

describe('MCP at /mcp', () => {
  let server: TestServer;
  let listeners: Listeners;
  const clients: Client[] = [];

  async function client(caller: string, options?: Parameters<typeof connectMcp>[2]): Promise<Client> {
    const connected = await connectMcp(server.url, caller, options);
    clients.push(connected);
    return connected;
  }

  beforeAll(async () => {
    server = await startTestServer();
    listeners = await listenOn('127.0.0.71', [8443, 9200], 'HELLO-selfscan');
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await listeners?.close();
    await server?.close();
  });

  it('initializes without a session and lists the three tools with their schemas', async () => {
    const mcp = await client('127.0.0.70');
    expect(mcp.getServerVersion()).toMatchObject({ name: 'selfscan' });
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['deep_scan', 'fast_scan', 'udp_scan']);
    for (const tool of tools) {
      expect(tool.description).toContain("caller's own public IP address");
      expect(tool.description).toMatch({ fast_scan: /10-20 s/, deep_scan: /1-5 minutes/, udp_scan: /a few seconds/ }[tool.name]!);
      expect(tool.annotations).toMatchObject({ readOnlyHint: false, openWorldHint: true });
      expect(tool.inputSchema).toMatchObject({
        type: 'object',
        properties: { rescan: { type: 'boolean', default: false } },
        additionalProperties: false,
      });
      expect(tool.inputSchema.required ?? []).toEqual([]);
      expect(tool.outputSchema).toMatchObject({ type: 'object' });
      expect(JSON.stringify(tool.outputSchema)).toContain('poll_after_seconds');
      // The MCP Inspector's schema-portability rule (`--strict`): no `type` arrays; nullable is an anyOf.
      expect(typeArrays(tool.inputSchema, 'inputSchema')).toEqual([]);
      expect(typeArrays(tool.outputSchema, 'outputSchema')).toEqual([]);
      expect(JSON.stringify(tool.outputSchema)).toContain('"anyOf":[{"type":"string"},{"type":"null"}]');
    }

    const initialize = await callerFetch('127.0.0.70')(`${server.url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    });
    expect(initialize.status).toBe(200);
    expect(initialize.headers.get('mcp-session-id')).toBeNull();
    expect(await initialize.text()).toContain('"serverInfo"');
  });

  it('fast_scan starts a scan of the caller, is polled to the end, then returns the kept result', async () => {
    const mcp = await client('127.0.0.71');
    const first = await call(mcp, 'fast');
    expect(first).toMatchObject({ ip: '127.0.0.71', scan_type: 'fast', total_chunks: 4 });
    expect(['queued', 'running']).toContain(first.status);
    expect(first.message).toContain('call fast_scan again in about');

    const done = await pollTool(mcp, 'fast');
    expect(done.status).toBe('complete');
    expect(done.ports_open).toEqual([
      { port: 8443, state: 'open', service: 'pcsync-https', banner: 'HELLO-selfscan', risk: expect.objectContaining({ severity: 'info' }) },
      { port: 9200, state: 'open', service: 'wap-wsp', banner: 'HELLO-selfscan', risk: expect.objectContaining({ severity: 'info' }) },
    ]);
    expect(done.message).toBe('Scan of 127.0.0.71 complete: 2 open ports (8443 pcsync-https, 9200 wap-wsp), none filtered.');
    expect(done).not.toHaveProperty('poll_after_seconds');

    // The same result REST reports, and calling again starts nothing.
    const { message: _message, ...rest } = done;
    expect(await pollUntilFinal(callerFetch('127.0.0.71'), `${server.url}/v1/fast`)).toEqual(rest);
    expect(await call(mcp, 'fast')).toEqual(done);
    expect(queuedFor(server, '127.0.0.71')).toHaveLength(1);
    expect(queuedFor(server, '127.0.0.71')[0]).toMatchObject({ origin: 'mcp' });
    expect(server.logs.some((l) => l.event === 'request' && l.path === '/mcp' && l.ip === '127.0.0.71' && l.status === '200')).toBe(true);
  });

  it('concurrent calls join one scan; rescan: true starts another', async () => {
    // A listener that never speaks keeps the scan waiting for its banner, long enough to be joined.
    const silent = await listenOn('127.0.0.72', [1521]);
    try {
      const mcp = await client('127.0.0.72');
      const started = await Promise.all(Array.from({ length: 5 }, () => call(mcp, 'fast')));
      for (const state of started) expect(['queued', 'running']).toContain(state.status);
      const before = await pollTool(mcp, 'fast');
      expect(before.ports_open).toEqual([expect.objectContaining({ port: 1521, state: 'open', banner: null })]);
      expect(queuedFor(server, '127.0.0.72')).toHaveLength(1);

      expect(['queued', 'running']).toContain((await call(mcp, 'fast', { rescan: true })).status);
      const after = await pollTool(mcp, 'fast');
      expect(after.status).toBe('complete');
      expect(after.completed_at as number).toBeGreaterThanOrEqual(before.completed_at as number);
      expect(queuedFor(server, '127.0.0.72')).toHaveLength(2);
    } finally {
      await silent.close();
    }
  });

  it('joins a scan started over REST instead of starting another', async () => {
    const mcp = await client('127.0.0.73');
    const fetch = callerFetch('127.0.0.73');
    expect((await fetch(`${server.url}/v1/deep`, { method: 'POST' })).status).toBe(200);
    const joined = await call(mcp, 'deep');
    expect(['queued', 'running', 'complete']).toContain(joined.status);
    const rest = await pollUntilFinal(fetch, `${server.url}/v1/deep`);
    const { message: _message, ...viaMcp } = await pollTool(mcp, 'deep');
    expect(viaMcp).toEqual(rest);
    expect(queuedFor(server, '127.0.0.73')).toHaveLength(1);
  });

  it('with a progress token, reports chunks as progress while the call stays open', async () => {
    const mcp = await client('127.0.0.74');
    const progress: { progress: number; total?: number }[] = [];
    const result = await mcp.callTool({ name: 'deep_scan', arguments: {} }, { onprogress: (p) => progress.push(p) });
    const state = output(result, 'deep');
    expect(state.status).toBe('complete'); // a loopback deep scan ends well within the hold
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.every((p) => p.total === 64)).toBe(true);
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length); // strictly increasing
    expect(values.at(-1)).toBe(64);
  });

  it('a client that gives up on a call mid-scan leaves the server serving', async () => {
    const mcp = await client('127.0.0.75');
    const abort = new AbortController();
    const call = mcp.callTool({ name: 'deep_scan', arguments: {} }, { signal: abort.signal, onprogress: () => abort.abort() });
    await expect(call).rejects.toThrow();
    expect((await pollTool(mcp, 'deep')).status).toBe('complete');
    expect(queuedFor(server, '127.0.0.75')).toHaveLength(1);
  });

  it('speaks the 2026-07-28 protocol revision too', async () => {
    const mcp = await client('127.0.0.76', { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    expect((await mcp.listTools()).tools).toHaveLength(3);
    const progress: number[] = [];
    const result = await mcp.callTool({ name: 'fast_scan', arguments: {} }, { onprogress: (p) => progress.push(p.progress) });
    expect(output(result, 'fast').status).toBe('complete');
    expect(progress.at(-1)).toBe(4);
  });

  it('takes no target from the arguments', async () => {
    const mcp = await client('127.0.0.77');
    const result = await mcp.callTool({ name: 'fast_scan', arguments: { ip: '8.8.8.8' } });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('ip');
    expect(queuedFor(server, '8.8.8.8')).toHaveLength(0);
    expect(queuedFor(server, '127.0.0.77')).toHaveLength(0);
  });

  it('answers a plain call in JSON, each from servers it keeps yet bound to the caller of the request', async () => {
    // Two callers' calls interleaved, more at once than one kept server serves: each must scan its own caller.
    const callers = ['127.0.0.81', '127.0.0.82'];
    const calls = Array.from({ length: 8 }, (_, i) => {
      const caller = callers[i % 2]!;
      return callerFetch(caller)(`${server.url}/mcp`, {
        method: 'POST',
        headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'fast_scan', arguments: {} } }),
      }).then(async (response) => ({ caller, id: i, response, text: await response.text() }));
    });
    for (const { caller, id, response, text } of await Promise.all(calls)) {
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json'); // not an event stream of one message
      const answer = JSON.parse(text) as { jsonrpc: string; id: number; result: CallToolResult };
      expect(answer).toMatchObject({ jsonrpc: '2.0', id });
      expect(output(answer.result, 'fast').ip).toBe(caller);
    }
    for (const caller of callers) expect(queuedFor(server, caller)).toHaveLength(1);

    const notified = await callerFetch('127.0.0.81')(`${server.url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe('');

    // With a progress token the call is the SDK's handler's, which streams.
    const withProgress = await callerFetch('127.0.0.81')(`${server.url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'fast_scan', arguments: {}, _meta: { progressToken: 'p' } } }),
    });
    expect(withProgress.headers.get('content-type')).toBe('text/event-stream');
    expect(await withProgress.text()).toContain('"id":9');
  });

  it('answers malformed JSON-RPC with a JSON-RPC error, never a crash', async () => {
    const fetch = callerFetch('127.0.0.78');
    const post = async (body: string, headers: Record<string, string> = MCP_HEADERS) => {
      const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body });
      return { status: response.status, body: (await response.json()) as { jsonrpc: string; id: unknown; error: { code: number } } };
    };
    const badJson = await post('{"jsonrpc":"2.0"');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    const notJsonRpc = await post('{"hello":"world"}');
    expect(notJsonRpc.status).toBe(400);
    expect(notJsonRpc.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    expect((await post('[]')).body.error.code).toBe(-32600);
    expect((await post('')).body.error.code).toBe(-32700);
    expect((await post('{}', { 'content-type': 'text/plain' })).status).toBe(415);
    const huge = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(2 * 1024 * 1024) } }));
    expect(huge.status).toBe(413);
    expect(huge.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });

    const mcp = await client('127.0.0.78');
    expect((await mcp.listTools()).tools).toHaveLength(3);
  });

  it('answers GET and DELETE with 405, as stateless serving has no session', async () => {
    const fetch = callerFetch('127.0.0.79');
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${server.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
    }
  });
});

describe('MCP and the abuse controls', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function server(overrides: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
    const started = await startTestServer(overrides);
    cleanups.push(() => started.close());
    return started;
  }

  async function client(s: TestServer, caller: string): Promise<Client> {
    const connected = await connectMcp(s.url, caller);
    cleanups.push(() => connected.close());
    return connected;
  }

  it('shares the deep-scan limit with REST, both ways, and refuses with an isError result', async () => {
    const s = await server({ limits: { ...NO_LIMITS, deepPerIp: { max: 1, windowSeconds: 300 } } });
    // REST first: the MCP rescan is refused, while the kept result still answers.
    const fetch = callerFetch('127.0.0.81');
    expect((await fetch(`${s.url}/v1/deep`, { method: 'POST' })).status).toBe(200);
    await pollUntilFinal(fetch, `${s.url}/v1/deep`);
    const mcp = await client(s, '127.0.0.81');
    expect((await call(mcp, 'deep')).status).toBe('complete');
    const result = await mcp.callTool({ name: 'deep_scan', arguments: { rescan: true } });
    expect(result.isError).toBe(true);
    const refused = output(result, 'deep');
    expect(refused).toMatchObject({ error: 'rate_limited', reason: expect.stringContaining('deep scans are limited to 1 per 300 s') });
    expect(refused.retry_after).toBeGreaterThan(0);
    expect(refused.message).toBe(`Rate limited: call deep_scan again in ${refused.retry_after} s.`);

    // MCP first: the REST start is refused.
    const other = await client(s, '127.0.0.82');
    expect(await pollTool(other, 'deep')).toMatchObject({ status: 'complete' });
    const again = await callerFetch('127.0.0.82')(`${s.url}/v1/deep`, { method: 'POST' });
    expect(again.status).toBe(429);
    expect(await again.json()).toMatchObject({ error: 'rate_limited' });
    expect(queuedFor(s, '127.0.0.81')).toHaveLength(1);
    expect(queuedFor(s, '127.0.0.82')).toHaveLength(1);
  });

  it('refuses a non-routable caller with invalid_target and starts nothing', async () => {
    const s = await server({ allowPrivateTargets: false });
    const mcp = await client(s, '127.0.0.83');
    const result = await mcp.callTool({ name: 'fast_scan', arguments: {} });
    expect(result.isError).toBe(true);
    const refused = output(result, 'fast');
    expect(refused).toMatchObject({ error: 'invalid_target', reason: expect.stringContaining('127.0.0.83 is not a publicly routable address') });
    expect(refused).not.toHaveProperty('retry_after');
    expect(refused.message).toContain("only the caller's own public IP address can be scanned");
    expect(s.logs.some((l) => l.event === 'scan_refused' && l.origin === 'mcp' && l.error === 'invalid_target')).toBe(true);
    expect(queuedFor(s, '127.0.0.83')).toHaveLength(0);
  });

  it('refuses an opted-out caller with not_available', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'selfscan-mcp-optout-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'optout.txt'), '127.0.0.84\n');
    const s = await server({ optOutFile: join(dir, 'optout.txt') });
    const result = await (await client(s, '127.0.0.84')).callTool({ name: 'deep_scan', arguments: {} });
    expect(result.isError).toBe(true);
    expect(output(result, 'deep')).toMatchObject({ error: 'not_available' });
  });

  it('counts every MCP request against the edge limit', async () => {
    const s = await server({ limits: { ...NO_LIMITS, edge: { max: 4, windowSeconds: 60 } } });
    const mcp = await client(s, '127.0.0.85'); // initialize, initialized, GET: three requests
    expect(['queued', 'running']).toContain((await call(mcp, 'fast')).status);
    let response: Response | undefined;
    for (let i = 0; i < 2 && response?.status !== 429; i++) {
      response = (await callerFetch('127.0.0.85')(`${s.url}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: '{}' })) as unknown as Response;
    }
    expect(response?.status).toBe(429);
    expect(response?.headers.get('retry-after')).not.toBeNull();
    expect(response?.headers.get('x-ratelimit-limit')).toBe('4');
    expect(await response?.json()).toMatchObject({ error: 'rate_limited' });
    await expect(mcp.callTool({ name: 'fast_scan', arguments: {} })).rejects.toThrow();
  });
});

describe("the fetch bridge, on the project's front", () => {
  let port = 0;
  let handler: (request: Request) => Promise<Response> = async () => new Response(null);
  let app: HttpApp;

  beforeAll(async () => {
    const front = chooseHttpFront({ server: testHttpServer(), headersTimeoutMs: 20_000, requestTimeoutMs: 60_000 }, pino({ level: 'silent' }));
    const router = front.router();
    router.any('/*', (res, req) => {
      const head = readRequestHead(req);
      const body = new RequestBody(res, 1024);
      const exchange = new Exchange(res, req, head.method);
      exchange.holdOpen(); // the answer comes after this callback
      void serveFetch(exchange, head, body, (request) => handler(request), {
        maxBodyBytes: 1024,
        reject: (status, message) => Response.json({ message }, { status }),
      });
    });
    app = front.serve(router, {});
    port = await app.listen('127.0.0.1', 0);
  });
  afterAll(() => app.stopListening());

  /** A handler answering an event stream of `chunks` chunks of `size` bytes, made only as they are read. */
  function eventStream(chunks: number, size: number, state: { pulled: number; cancelled: boolean }) {
    return async () =>
      new Response(
        new ReadableStream<Uint8Array>(
          {
            pull(controller) {
              if (state.pulled === chunks) return controller.close();
              state.pulled++;
              controller.enqueue(new Uint8Array(size).fill(0x61));
            },
            cancel() {
              state.cancelled = true;
            },
          },
          { highWaterMark: 0 },
        ),
        { headers: { 'content-type': 'text/event-stream' } },
      );
  }

  it('passes method, path, headers and body through, and answers HEAD without a body', async () => {
    handler = async (request) => Response.json({ method: request.method, url: request.url, header: request.headers.get('x-test'), body: await request.text() });
    const response = await fetch(`http://127.0.0.1:${port}/some/path?q=1`, { method: 'POST', headers: { 'x-test': 'yes' }, body: 'hello' });
    expect(await response.json()).toEqual({ method: 'POST', url: `http://127.0.0.1:${port}/some/path?q=1`, header: 'yes', body: 'hello' });
    const tooLarge = await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x'.repeat(4096) });
    expect(tooLarge.status).toBe(413);

    const raw = await rawExchange(`HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n`, 2);
    expect(raw.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(raw.indexOf('"method":"HEAD"')).toBe(-1); // no body for HEAD; the GET that follows parses
    expect(raw).toContain('"method":"GET"');
  });

  it('streams an event-stream body and reads no further ahead than the socket takes', async () => {
    const state = { pulled: 0, cancelled: false };
    const chunks = 64;
    const size = 1024 * 1024;
    handler = eventStream(chunks, size, state);
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.pause();
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stalled = state.pulled;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(state.pulled).toBe(stalled); // waiting for the reader, not buffering the rest
    expect(stalled).toBeLessThan(chunks / 2);

    let received = 0;
    let tail = '';
    const ended = new Promise<void>((resolve) => {
      socket.on('data', (data: Buffer) => {
        received += data.length;
        tail = (tail + data.subarray(-5).toString('latin1')).slice(-5);
        if (tail === '0\r\n\r\n') resolve(); // the last chunk of a chunked body
      });
    });
    socket.resume();
    await ended;
    socket.destroy();
    expect(state.pulled).toBe(chunks);
    expect(received).toBeGreaterThan(chunks * size);
  });

  it('cancels the stream when the client goes away', async () => {
    const state = { pulled: 0, cancelled: false };
    handler = eventStream(10_000, 64 * 1024, state);
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    socket.destroy();
    const deadline = Date.now() + 5000;
    while (!state.cancelled && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(10_000);
  });

  /** Writes `request` on one connection and collects what comes back until `responses` status lines arrived and it goes quiet. */
  async function rawExchange(request: string, responses: number): Promise<string> {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (data: string) => (text += data));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(request);
    const deadline = Date.now() + 5000;
    while ((text.match(/HTTP\/1\.1 /g)?.length ?? 0) < responses && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    return text;
  }
});
