// v1 polling against the real server on port 0, real scans of loopback
// callers, every response body checked against the OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { burst } from '../helpers/burst.js';
import { eventually } from '../helpers/eventually.js';
import { FakeScanner } from '../helpers/fake-scanner.js';
import { HeldScanner } from '../helpers/held-scanner.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let listeners: Listeners;

beforeAll(async () => {
  server = await startTestServer();
  listeners = await listenOn('127.0.0.11', [8443, 9200], 'HELLO-selfscan');
});
afterAll(async () => {
  await listeners?.close();
  await server?.close();
});

async function json(response: Response | Awaited<ReturnType<ReturnType<typeof callerFetch>>>, method: string, path: string): Promise<Record<string, unknown>> {
  const body = (await response.json()) as Record<string, unknown>;
  validateResponse(method, path, response.status, body);
  return body;
}

describe('POST then GET /v1/fast', () => {
  it('scans the caller and reports the complete result', async () => {
    const fetch = callerFetch('127.0.0.11');
    const started = await fetch(`${server.url}/v1/fast`, { method: 'POST' });
    expect(started.status).toBe(200);
    const queued = await json(started, 'POST', '/v1/fast');
    expect(queued).toMatchObject({ ip: '127.0.0.11', scan_type: 'fast', status: 'queued' });
    expect(queued.eta_seconds).toBeGreaterThanOrEqual(0);

    const result = await pollUntilFinal(fetch, `${server.url}/v1/fast`);
    const response = await fetch(`${server.url}/v1/fast`);
    const body = await json(response, 'GET', '/v1/fast');
    expect(body).toEqual(result);
    expect(body.status).toBe('complete');
    expect(body.ports_open).toEqual([
      { port: 8443, state: 'open', service: 'pcsync-https', banner: 'HELLO-selfscan', risk: expect.objectContaining({ severity: 'info' }) },
      { port: 9200, state: 'open', service: 'wap-wsp', banner: 'HELLO-selfscan', risk: expect.objectContaining({ severity: 'info' }) },
    ]); // a greeting no probe knows: rated, no facts
    expect(body.ports_filtered).toEqual([]);
    expect(body.service_banners).toEqual({ '8443': 'HELLO-selfscan', '9200': 'HELLO-selfscan' });
    expect(body.expires_at).toBe((body.completed_at as number) + 86400);
    expect(response.headers.get('x-scan-duration-ms')).toBe(String(body.duration_ms));
  });

  it('answers status none for a caller with no scan', async () => {
    const response = await callerFetch('127.0.0.12')(`${server.url}/v1/deep`);
    expect(await json(response, 'GET', '/v1/deep')).toEqual({ ip: '127.0.0.12', scan_type: 'deep', status: 'none' });
    expect(response.headers.get('x-scan-duration-ms')).toBeNull();
  });
});

describe('POST /v1/deep', () => {
  it('scans all 65,535 ports of the caller', async () => {
    const fetch = callerFetch('127.0.0.11');
    await json(await fetch(`${server.url}/v1/deep`, { method: 'POST' }), 'POST', '/v1/deep');
    const result = await pollUntilFinal(fetch, `${server.url}/v1/deep`);
    expect(result.status).toBe('complete');
    // Every port listening on the caller's address, ours and the machine's.
    expect((result.ports_open as { port: number }[]).map((p) => p.port)).toEqual(listeningPorts('127.0.0.11'));
    expect(listeningPorts('127.0.0.11')).toEqual(expect.arrayContaining([8443, 9200]));
  });

  it('coalesces 1,000 concurrent POSTs from one caller onto one scan', async () => {
    // The scan runs for real but ends only once every answer is in: a loaded machine can read the
    // burst slower than a loopback deep scan lasts, and a POST after the end rightly starts a new scan.
    const scanner = new HeldScanner();
    const own = await startTestServer({}, { scanner });
    try {
      const responses = await burst(own.server.port, '127.0.0.13', 'POST /v1/deep HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n', 1000);
      scanner.release();
      for (const response of responses) validateResponse('POST', '/v1/deep', response.status, response.body);
      expect(responses.every((r) => r.status === 200)).toBe(true);
      const started = own.logs.filter((l) => l.event === 'scan_queued' && l.ip === '127.0.0.13');
      const joined = own.logs.filter((l) => l.event === 'scan_joined' && l.ip === '127.0.0.13');
      expect(started).toHaveLength(1);
      expect(joined).toHaveLength(999);
      expect(responses.filter((r) => (r.body as { total_chunks?: number }).total_chunks === 64)).toHaveLength(1000); // the start and every join
      expect(await pollUntilFinal(callerFetch('127.0.0.13'), `${own.url}/v1/deep`)).toMatchObject({ status: 'complete' });
    } finally {
      scanner.release();
      await own.close();
    }
  });
});

describe('POST /v1/fast answers with the chunk counters (interface fact 2)', () => {
  it('when it starts a scan, joins one still queued, or joins one running', async () => {
    // One fast scan at a time, on a scanner the test ends: the first caller's scan runs, the second's waits in line.
    const scanner = new FakeScanner();
    const own = await startTestServer({ concurrency: { fast: 1 } }, { scanner });
    try {
      const first = callerFetch('127.0.0.21');
      const second = callerFetch('127.0.0.22');
      const post = async (fetch: ReturnType<typeof callerFetch>): Promise<Record<string, unknown>> => {
        const response = await fetch(`${own.url}/v1/fast`, { method: 'POST' });
        expect(response.status).toBe(200);
        return json(response, 'POST', '/v1/fast');
      };
      const counters = { chunks_complete: 0, total_chunks: 4 };

      expect(await post(first)).toMatchObject({ ip: '127.0.0.21', status: 'queued', ...counters });
      await eventually(() => scanner.scans.length === 1, 5000, 'the first scan to start');
      // A fresh scan that waits in line, then a POST that joins it while it still waits.
      expect(await post(second)).toMatchObject({ ip: '127.0.0.22', scan_type: 'fast', status: 'queued', ...counters });
      const joinedQueued = await post(second);
      expect(joinedQueued).toMatchObject({ ip: '127.0.0.22', scan_type: 'fast', status: 'queued', ...counters });
      expect(joinedQueued.eta_seconds).toBeGreaterThanOrEqual(0);
      expect(await json(await second(`${own.url}/v1/fast`), 'GET', '/v1/fast')).toMatchObject({ status: 'queued' }); // still in line
      // A POST that joins the scan running, after a chunk of it.
      scanner.scans[0]!.chunk({ index: 0, total: 4 });
      expect(await post(first)).toMatchObject({ ip: '127.0.0.21', status: 'running', chunks_complete: 1, total_chunks: 4 });

      expect(own.logs.filter((line) => line.event === 'scan_queued')).toHaveLength(2);
      expect(own.logs.filter((line) => line.event === 'scan_joined').map((line) => line.ip)).toEqual(['127.0.0.22', '127.0.0.21']);
      expect(scanner.scans).toHaveLength(1); // the second scan still waits: nothing it joined was a new scan
      scanner.scans[0]!.complete();
      await eventually(() => scanner.scans.length === 2, 5000, 'the second scan to start');
      scanner.scans[1]!.complete();
    } finally {
      await own.close();
    }
  });
});

describe('errors', () => {
  it('answers unknown paths with a JSON 404 and wrong methods with a JSON 405', async () => {
    const fetch = callerFetch('127.0.0.14');
    const missing = await fetch(`${server.url}/v1/slow`);
    expect(missing.status).toBe(404);
    expect(await json(missing, 'GET', '/v1/slow')).toMatchObject({ error: 'not_found' });
    const wrong = await fetch(`${server.url}/v1/fast`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(await json(wrong, 'DELETE', '/v1/fast')).toMatchObject({ error: 'method_not_allowed' });
    const put = await fetch(`${server.url}/v2/deep`, { method: 'POST' });
    expect(put.status).toBe(405);
    expect(await json(put, 'POST', '/v2/deep')).toMatchObject({ error: 'method_not_allowed' });
  });

  it("answers HEAD with GET's status and headers, no body, keeping the connection usable", async () => {
    const fetch = callerFetch('127.0.0.16');
    for (let i = 0; i < 3; i++) {
      const head = await fetch(`${server.url}/v1/fast`, { method: 'HEAD', headers: { 'accept-encoding': 'identity' } });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      const get = await fetch(`${server.url}/v1/fast`, { headers: { 'accept-encoding': 'identity' } });
      expect(get.status).toBe(200);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(Number(head.headers.get('content-length'))).toBe((await get.text()).length);
    }
  });

  it('ignores a body, query string and odd headers on POST', async () => {
    const fetch = callerFetch('127.0.0.15');
    const response = await fetch(`${server.url}/v1/fast?ip=8.8.8.8`, {
      method: 'POST',
      body: '{"ip":"8.8.8.8"}',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '8.8.4.4' },
    });
    expect(await json(response, 'POST', '/v1/fast')).toMatchObject({ ip: '127.0.0.15' });
    expect((await pollUntilFinal(fetch, `${server.url}/v1/fast`)).ip).toBe('127.0.0.15');
  });

  it('serves the OpenAPI document, gzip-compressed for clients that accept it', async () => {
    const fetch = callerFetch('127.0.0.14');
    const plain = await fetch(`${server.url}/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    const response = await fetch(`${server.url}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const document = (await response.json()) as { openapi: string; info: { version: string } };
    expect(document).toEqual(await plain.json());
    expect(response.status).toBe(200);
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.3.0');
  });
});
