// The abuse controls through the real server: rate limits with their
// headers (injected clock), the target rule against spoofed headers,
// trusted proxies, opt-out with live reload. Real clients on loopback; a
// scanner that ends each scan at once, as what it finds plays no part here.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import type { Config } from '../../src/config/config.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { runCli } from '../../support/server-process.js';
import { burst } from '../helpers/burst.js';
import { eventually } from '../helpers/eventually.js';
import { FakeScanner } from '../helpers/fake-scanner.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(
  overrides: Parameters<typeof startTestServer>[0] = {},
  clock?: { now(): number },
  scanner = new FakeScanner({ endAtOnce: true }),
): Promise<TestServer> {
  const started = await startTestServer(overrides, { clock, scanner });
  cleanups.push(() => started.close());
  return started;
}

function limits(changes: Partial<Config['limits']>): Config['limits'] {
  return { ...NO_LIMITS, ...changes };
}

async function call(caller: string, url: string, method = 'GET', headers: Record<string, string> = {}) {
  const response = await callerFetch(caller)(url, { method, headers });
  const body = (await response.json()) as Record<string, unknown>;
  validateResponse(method, new URL(url).pathname, response.status, body);
  return { status: response.status, body, headers: response.headers };
}

function rateHeaders(headers: Headers | { get(name: string): string | null }) {
  return ['limit', 'remaining', 'reset'].map((name) => Number(headers.get(`x-ratelimit-${name}`)));
}

describe('rate limits', () => {
  it('edge: every request of an IP counts; 429 with Retry-After once over, then a sliding refill', async () => {
    let now = Date.UTC(2026, 10, 21, 12);
    const s = await server({ limits: limits({ edge: { max: 5, windowSeconds: 60 } }) }, { now: () => now });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await call('127.0.0.41', `${s.url}${i % 2 ? '/v1/fast' : '/nowhere'}`));
    expect(answers.map((a) => rateHeaders(a.headers))).toEqual([4, 3, 2, 1, 0].map((left, i) => [5, left, now / 1000 + 12 * (i + 1)]));

    const refused = await call('127.0.0.41', `${s.url}/v1/fast`);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'rate_limited', retry_after: 12 });
    expect(refused.headers.get('retry-after')).toBe('12');
    expect(rateHeaders(refused.headers)).toEqual([5, 0, now / 1000 + 60]);
    expect((await call('127.0.0.42', `${s.url}/v1/fast`)).status).toBe(200); // another caller

    now += 12_000;
    expect((await call('127.0.0.41', `${s.url}/v1/fast`)).status).toBe(200);
    expect((await call('127.0.0.41', `${s.url}/v1/fast`)).status).toBe(429);
  });

  it('edge: GET /healthz is never charged, and answers the health of the single process', async () => {
    const s = await server({ limits: limits({ edge: { max: 2, windowSeconds: 60 } }) });
    for (let i = 0; i < 5; i++) {
      const health = await call('127.0.0.44', `${s.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ ok: true, role: 'all', region: null, redis: null, jobsInHand: 0, engine: null, http_server: s.server.httpServer }); // the fake scanner names no engine
      expect(health.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await call('127.0.0.44', `${s.url}/v1/fast`)).status).toBe(200);
    expect((await call('127.0.0.44', `${s.url}/v1/fast`)).status).toBe(200);
    expect((await call('127.0.0.44', `${s.url}/v1/fast`)).status).toBe(429);
    const post = await call('127.0.0.44', `${s.url}/healthz`, 'POST');
    expect(post).toMatchObject({ status: 405, body: { error: 'method_not_allowed' } });
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('deep per IP: one per 5 minutes on v1 and v2 alike; joining a scan in flight costs nothing', async () => {
    let now = Date.UTC(2026, 10, 21, 12);
    // The deep scan runs until the test ends it, so every POST of the burst finds it in flight whatever the front's pace.
    const scanner = new FakeScanner();
    const s = await server({ limits: limits({ deepPerIp: { max: 1, windowSeconds: 300 } }) }, { now: () => now }, scanner);
    const joined = await burst(s.server.port, '127.0.0.43', 'POST /v1/deep HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n', 50);
    expect(joined.map((r) => r.status)).toEqual(Array(50).fill(200));
    await eventually(() => scanner.scans.length === 1, 5000, 'the scan started');
    scanner.scans[0]!.complete();
    await pollUntilFinal(callerFetch('127.0.0.43'), `${s.url}/v1/deep`);
    expect(scanner.scans).toHaveLength(1);

    now += 100_000;
    const again = await call('127.0.0.43', `${s.url}/v1/deep`, 'POST');
    expect(again.status).toBe(429);
    expect(again.body).toMatchObject({ error: 'rate_limited', retry_after: 200 });
    expect(again.headers.get('retry-after')).toBe('200');
    expect(rateHeaders(again.headers)[0]).toBe(1); // the limit that refused
    const stream = await call('127.0.0.43', `${s.url}/v2/deep`);
    expect(stream.status).toBe(429);
    expect((await call('127.0.0.43', `${s.url}/v1/fast`, 'POST')).status).toBe(200); // fast is not limited per IP

    now += 200_000;
    expect((await call('127.0.0.43', `${s.url}/v1/deep`, 'POST')).status).toBe(200);
    await eventually(() => scanner.scans.length === 3, 5000, 'the second deep scan started'); // the fast scan was the second
    scanner.scans[2]!.complete();
    await pollUntilFinal(callerFetch('127.0.0.43'), `${s.url}/v1/deep`);
  });

  it('per ASN: callers without an AS share their /24 as the bucket', async () => {
    const s = await server({ limits: limits({ fastPerAsn: { max: 2, windowSeconds: 3600 }, deepPerAsn: { max: 1, windowSeconds: 3600 } }) });
    expect((await call('127.0.2.1', `${s.url}/v1/fast`, 'POST')).status).toBe(200);
    expect((await call('127.0.2.2', `${s.url}/v1/fast`, 'POST')).status).toBe(200);
    const third = await call('127.0.2.3', `${s.url}/v1/fast`, 'POST');
    expect(third.status).toBe(429);
    expect(third.body.reason).toContain('127.0.2.0/24');
    expect((await call('127.0.3.1', `${s.url}/v1/fast`, 'POST')).status).toBe(200);
    expect((await call('127.0.2.4', `${s.url}/v1/deep`, 'POST')).status).toBe(200);
    expect((await call('127.0.2.5', `${s.url}/v1/deep`, 'POST')).status).toBe(429);
    const admitted = s.logs.find((l) => l.event === 'scan_admitted' && l.ip === '127.0.2.1');
    expect(admitted).toMatchObject({ asn: null, bucket: '127.0.2.0/24', scanType: 'fast', origin: 'v1' });
    for (const ip of ['127.0.2.1', '127.0.2.2', '127.0.3.1']) await pollUntilFinal(callerFetch(ip), `${s.url}/v1/fast`);
    await pollUntilFinal(callerFetch('127.0.2.4'), `${s.url}/v1/deep`);
  });
});

describe('the target is the connection', () => {
  it('is not moved by forwarded headers or a query string', async () => {
    const s = await server();
    const spoofs: Record<string, string>[] = [
      { 'x-forwarded-for': '8.8.8.8' },
      { forwarded: 'for=8.8.8.8' },
      { 'x-real-ip': '8.8.8.8' },
      { 'true-client-ip': '8.8.8.8' },
      { 'cf-connecting-ip': '8.8.8.8' },
    ];
    for (const headers of spoofs) {
      const answer = await call('127.0.0.44', `${s.url}/v1/fast`, 'POST', headers);
      expect(answer.body.ip).toBe('127.0.0.44');
    }
    expect((await call('127.0.0.44', `${s.url}/v1/fast?ip=8.8.8.8`, 'POST')).body.ip).toBe('127.0.0.44');
    expect((await pollUntilFinal(callerFetch('127.0.0.44'), `${s.url}/v1/fast`)).ip).toBe('127.0.0.44');
    expect(new Set(s.logs.filter((l) => l.event === 'scan_queued').map((l) => l.ip))).toEqual(new Set(['127.0.0.44']));
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const s = await server({ trustProxy: ['127.0.0.50'] });
    const proxied = await call('127.0.0.50', `${s.url}/v1/fast`, 'POST', { 'x-forwarded-for': '127.0.0.51' });
    expect(proxied.body.ip).toBe('127.0.0.51');
    const direct = await call('127.0.0.52', `${s.url}/v1/fast`, 'POST', { 'x-forwarded-for': '127.0.0.51' });
    expect(direct.body.ip).toBe('127.0.0.52');
    for (const ip of ['127.0.0.51', '127.0.0.52']) await pollUntilFinal(callerFetch(ip), `${s.url}/v1/fast`);
  });

  it('refuses non-routable callers with 422 on v1 and v2', async () => {
    const s = await server({ allowPrivateTargets: false });
    const v1 = await call('127.0.0.45', `${s.url}/v1/deep`, 'POST');
    expect(v1.status).toBe(422);
    expect(v1.body).toMatchObject({ error: 'invalid_target' });
    const v2 = await call('127.0.0.45', `${s.url}/v2/fast`);
    expect(v2.status).toBe(422);
    expect(s.logs.some((l) => l.event === 'scan_refused' && l.error === 'invalid_target')).toBe(true);
  });
});

describe('opt-out', () => {
  it('answers 403 not_available on every start path, and follows edits without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'selfscan-optout-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'optout.txt');
    writeFileSync(file, '# opted out\n127.0.0.60/31\n');
    const s = await server({ optOutFile: file });

    for (const [method, path] of [
      ['POST', '/v1/fast'],
      ['POST', '/v1/deep'],
      ['GET', '/v2/deep'],
    ] as const) {
      const answer = await call('127.0.0.61', `${s.url}${path}`, method);
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ error: 'not_available' });
    }
    expect((await call('127.0.0.62', `${s.url}/v1/fast`, 'POST')).status).toBe(200);
    await pollUntilFinal(callerFetch('127.0.0.62'), `${s.url}/v1/fast`);

    const add = runCli(['optout', 'add', '127.0.0.62', '--file', file]);
    expect(await add.exited).toBe(0);
    await eventually(async () => (await call('127.0.0.62', `${s.url}/v1/fast`, 'POST')).status === 403);
    const remove = runCli(['optout', 'remove', '127.0.0.60/31', '--file', file]);
    expect(await remove.exited).toBe(0);
    await eventually(async () => (await call('127.0.0.61', `${s.url}/v1/fast`, 'POST')).status === 200);
    const list = runCli(['optout', 'list', '--file', file]);
    expect(await list.exited).toBe(0);
    expect(list.stdout()).toContain('127.0.0.62');
    expect(list.stdout()).not.toContain('127.0.0.60/31');
    // Nothing was scanned while opted out: 127.0.0.61 only after its removal.
    const queued = s.logs.filter((l) => l.event === 'scan_queued').map((l) => l.ip);
    expect(queued.filter((ip) => ip === '127.0.0.61')).toHaveLength(1);
    expect(queued.at(-1)).toBe('127.0.0.61');
    await pollUntilFinal(callerFetch('127.0.0.61'), `${s.url}/v1/fast`);
  });
});
