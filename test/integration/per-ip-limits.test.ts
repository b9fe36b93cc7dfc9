// Whom the per-IP limits count, and that they outlast the process: IPv6
// callers from addresses this test adds to `lo` (2001:db8:18:6::/64 and
// 2001:db8:18:7::/64, removed afterwards) against the real server on ::1;
// a restart of the real server process on the same data dir.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { Config } from '../../src/config/config.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { FakeScanner } from '../helpers/fake-scanner.js';
import { startTestServer } from '../helpers/test-server.js';

const CALLERS = ['2001:db8:18:6::1', '2001:db8:18:6::2', '2001:db8:18:6:ffff::3', '2001:db8:18:7::1'];
const [SAME_A, SAME_B, SAME_C, OTHER] = CALLERS as [string, string, string, string];

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function call(caller: string, url: string, method = 'GET') {
  const response = await callerFetch(caller)(url, { method });
  const body = (await response.json()) as Record<string, unknown>;
  validateResponse(method, new URL(url).pathname, response.status, body);
  return { status: response.status, body, headers: response.headers };
}

describe('IPv6 callers count by their prefix', () => {
  beforeAll(() => {
    for (const address of CALLERS) execFileSync('ip', ['-6', 'addr', 'replace', `${address}/128`, 'dev', 'lo', 'nodad']);
  });
  afterAll(() => {
    for (const address of CALLERS) execFileSync('ip', ['-6', 'addr', 'del', `${address}/128`, 'dev', 'lo']);
  });

  async function server(limits: Partial<Config['limits']>): Promise<string> {
    const started = await startTestServer({ host: '::1', limits: { ...NO_LIMITS, ...limits } }, { scanner: new FakeScanner({ endAtOnce: true }) });
    cleanups.push(() => started.close());
    return `http://[::1]:${started.server.port}`;
  }

  it('shares the deep-per-IP and edge limits across one /64 (the default); another /64 is another caller', async () => {
    const url = await server({ deepPerIp: { max: 1, windowSeconds: 300 }, edge: { max: 6, windowSeconds: 3600 } });
    expect((await call(SAME_A, `${url}/v1/deep`, 'POST')).status).toBe(200);
    const rotated = await call(SAME_B, `${url}/v1/deep`, 'POST');
    expect(rotated.status).toBe(429);
    expect(rotated.body).toMatchObject({ error: 'rate_limited' });
    expect(rotated.body.reason).toContain('2001:db8:18:6::/64');
    expect((await call(OTHER, `${url}/v1/deep`, 'POST')).status).toBe(200);
    // Only the limits count the /64: the scan target is still the full address.
    expect((await call(SAME_B, `${url}/v1/deep`)).body).toMatchObject({ status: 'none', ip: SAME_B });
    expect((await pollUntilFinal(callerFetch(SAME_A), `${url}/v1/deep`)).ip).toBe(SAME_A);

    // Edge: the /64 made 4 requests (OTHER's are its own); 2 more from anywhere in it, then 429.
    expect((await call(SAME_C, `${url}/v1/fast`)).headers.get('x-ratelimit-remaining')).toBe('1');
    expect((await call(SAME_A, `${url}/v1/fast`)).status).toBe(200);
    const over = await call(SAME_C, `${url}/v1/fast`);
    expect(over.status).toBe(429);
    expect(over.body.reason).toContain('from 2001:db8:18:6::/64');
    expect((await call(OTHER, `${url}/v1/fast`)).status).toBe(200);
  });

  it('follows limits.ipv6PrefixLength: /128 counts each address, /48 both /64s together', async () => {
    const each = await server({ deepPerIp: { max: 1, windowSeconds: 300 }, ipv6PrefixLength: 128 });
    expect((await call(SAME_A, `${each}/v1/deep`, 'POST')).status).toBe(200);
    expect((await call(SAME_B, `${each}/v1/deep`, 'POST')).status).toBe(200);

    const wide = await server({ deepPerIp: { max: 1, windowSeconds: 300 }, ipv6PrefixLength: 48 });
    expect((await call(SAME_A, `${wide}/v1/deep`, 'POST')).status).toBe(200);
    const refused = await call(OTHER, `${wide}/v1/deep`, 'POST');
    expect(refused.status).toBe(429);
    expect(refused.body.reason).toContain('2001:db8:18::/48');
  });

  it('leaves IPv4 callers keyed by their address', async () => {
    const started = await startTestServer(
      { limits: { ...NO_LIMITS, deepPerIp: { max: 1, windowSeconds: 300 } } },
      { scanner: new FakeScanner({ endAtOnce: true }) },
    );
    cleanups.push(() => started.close());
    expect((await call('127.0.0.233', `${started.url}/v1/deep`, 'POST')).status).toBe(200);
    expect((await call('127.0.0.234', `${started.url}/v1/deep`, 'POST')).status).toBe(200);
    await pollUntilFinal(callerFetch('127.0.0.233'), `${started.url}/v1/deep`); // so the next POST cannot join it
    const again = await call('127.0.0.233', `${started.url}/v1/deep`, 'POST');
    expect(again.status).toBe(429);
    expect(again.body.reason).toContain('for 127.0.0.233;');
  });
});

describe('a restart', () => {
  it('keeps the rate-limit state: an allowance spent stays spent, the edge count goes on', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-limits-restart-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const limits = { ...NO_LIMITS, webhooksPerIp: { max: 1, windowSeconds: 3600 }, edge: { max: 1000, windowSeconds: 86_400 } };
    const config = { drainSeconds: 1, allowPrivateCallbacks: true, limits };
    const start = async (): Promise<ServerProcess> => {
      const started = await startServerProcess(dataDir, config);
      cleanups.push(async () => {
        started.child.kill('SIGKILL');
        await started.exited;
      });
      return started;
    };
    const caller = '127.0.0.235';
    // Nothing listens there: the delivery fails, which plays no part here.
    const withHook = { method: 'POST', headers: { 'x-callback-url': 'http://127.0.0.1:9/hook' } };

    const first = await start();
    expect((await callerFetch(caller)(`${first.url}/v1/fast`, withHook)).status).toBe(200);
    await pollUntilFinal(callerFetch(caller), `${first.url}/v1/fast`);
    const last = await call('127.0.0.236', `${first.url}/v1/fast`);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('999');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await start();
    const refused = await callerFetch(caller)(`${second.url}/v1/fast`, withHook);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { reason: string }).reason).toContain('webhook registrations are limited to 1 per 3600 s for 127.0.0.235');
    expect((await call('127.0.0.236', `${second.url}/v1/fast`)).headers.get('x-ratelimit-remaining')).toBe('998');
  }, 60_000);
});
