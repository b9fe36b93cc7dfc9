// Completion webhooks through the real server and a real receiver on
// loopback: body, headers and Ed25519 signature, retries, durability across
// a crash, callbacks of coalesced POSTs, and the SSRF guards.
import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { VERSION } from '../../src/api/version.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { type ReceivedHook, type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

async function server(overrides: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const started = await startTestServer({ allowPrivateCallbacks: true, webhooks: { retryDelaysSeconds: [0.1, 0.1, 0.1], timeoutSeconds: 2 }, ...overrides });
  cleanups.push(() => started.close());
  return started;
}

async function post(url: string, caller: string, callback?: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await callerFetch(caller)(url, { method: 'POST', headers: callback === undefined ? {} : { 'x-callback-url': callback } });
  const body = (await response.json()) as Record<string, unknown>;
  validateResponse('POST', new URL(url).pathname, response.status, body);
  return { status: response.status, body };
}

function attempts(logs: Record<string, unknown>[]): Record<string, unknown>[] {
  return logs.filter((l) => l.event === 'webhook_attempt');
}

describe('delivery', () => {
  it('posts the result, signed with the published Ed25519 key', async () => {
    const hooks = await receiver();
    const s = await server();
    expect((await post(`${s.url}/v1/fast`, '127.0.0.81', hooks.url('/hook'))).status).toBe(200);
    const [hook] = (await hooks.waitFor('/hook', 1)) as [ReceivedHook];
    const result = await pollUntilFinal(callerFetch('127.0.0.81'), `${s.url}/v1/fast`);

    expect(hook.headers['content-type']).toBe('application/json');
    expect(hook.headers['user-agent']).toBe(`selfscan/${VERSION}`);
    expect(hook.headers['x-selfscan-event']).toBe('scan.complete');
    expect(hook.headers['x-selfscan-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    const timestamp = Number(hook.headers['x-selfscan-timestamp']);
    expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(60);
    expect(JSON.parse(hook.body)).toEqual({ event: 'scan.complete', result });

    const keyResponse = await callerFetch('127.0.0.81')(`${s.url}/.well-known/selfscan-webhook-key`);
    const key = (await keyResponse.json()) as { jwk: object; pem: string };
    validateResponse('GET', '/.well-known/selfscan-webhook-key', keyResponse.status, key);
    const signature = Buffer.from(String(hook.headers['x-selfscan-signature']), 'base64');
    const signed = Buffer.from(`${timestamp}.${hook.body}`);
    expect(verify(null, signed, createPublicKey({ key: key.jwk as never, format: 'jwk' }), signature)).toBe(true);
    expect(verify(null, signed, createPublicKey(key.pem), signature)).toBe(true);
    expect(verify(null, Buffer.from(`${timestamp}.${hook.body} `), createPublicKey(key.pem), signature)).toBe(false);
  });

  it('retries after 5xx answers with the same delivery id, then stops', async () => {
    const hooks = await receiver();
    hooks.answer('/flaky', 500, 503, 200);
    const s = await server();
    await post(`${s.url}/v1/fast`, '127.0.0.82', hooks.url('/flaky'));
    const received = await hooks.waitFor('/flaky', 3);
    expect(new Set(received.map((h) => h.headers['x-selfscan-delivery'])).size).toBe(1);
    expect(received[2]!.at - received[1]!.at).toBeGreaterThanOrEqual(90);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(hooks.received.filter((h) => h.path === '/flaky')).toHaveLength(3);
    expect(attempts(s.logs).map((a) => a.outcome)).toEqual(['retry', 'retry', 'delivered']);
  });

  it('notifies every coalesced POST at its own URL, once', async () => {
    const hooks = await receiver();
    const s = await server();
    await post(`${s.url}/v1/deep`, '127.0.0.83', hooks.url('/first'));
    const joined = await post(`${s.url}/v1/deep`, '127.0.0.83', hooks.url('/second'));
    expect(joined.body.total_chunks).toBe(64); // it joined the scan in flight
    await post(`${s.url}/v1/deep`, '127.0.0.83');
    const [first] = await hooks.waitFor('/first', 1);
    const [second] = await hooks.waitFor('/second', 1);
    expect(first!.body).toBe(second!.body);
    expect(first!.headers['x-selfscan-delivery']).not.toBe(second!.headers['x-selfscan-delivery']);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received).toHaveLength(2);
  });

  it('does not follow redirects, and gives up on a receiver that does not answer in time', async () => {
    const hooks = await receiver();
    hooks.answer('/moved', { status: 302, headers: { location: hooks.url('/elsewhere') } });
    hooks.answer('/slow', { status: 200, delayMs: 3000 });
    const s = await server({ webhooks: { retryDelaysSeconds: [], timeoutSeconds: 0.3 } });
    await post(`${s.url}/v1/fast`, '127.0.0.84', hooks.url('/moved'));
    await post(`${s.url}/v1/deep`, '127.0.0.84', hooks.url('/slow'));
    await hooks.waitFor('/moved', 1);
    await hooks.waitFor('/slow', 1);
    await waitForLog(s, (l) => l.event === 'webhook_attempt' && String(l.url).endsWith('/slow'));
    const byUrl = new Map(attempts(s.logs).map((a) => [String(a.url).split('/').pop(), a]));
    expect(byUrl.get('moved')).toMatchObject({ outcome: 'rejected', status: 302, willRetry: false });
    expect(byUrl.get('slow')).toMatchObject({ outcome: 'retry', willRetry: false });
    expect(String(byUrl.get('slow')!.detail)).toContain('300 ms');
    expect(hooks.received.filter((h) => h.path === '/elsewhere')).toHaveLength(0);
  });
});

describe('validation and SSRF guards', () => {
  it('answers 422 invalid_callback_url for a bad URL and starts nothing', async () => {
    const s = await server();
    const bad = ['not a url', '/relative/hook', 'ftp://example.com/hook', 'http://user:secret@example.com/hook', `http://example.com/${'a'.repeat(2040)}`];
    for (const url of bad) {
      const answer = await post(`${s.url}/v1/fast`, '127.0.0.85', url);
      expect(answer.status, url).toBe(422);
      expect(answer.body).toMatchObject({ error: 'invalid_callback_url' });
    }
    expect(s.logs.filter((l) => l.event === 'scan_queued')).toHaveLength(0);
  });

  it('answers 422 at the POST for an IP literal webhooks are never delivered to, and starts nothing', async () => {
    const s = await server({ allowPrivateCallbacks: false });
    const literals = [
      'http://127.0.0.1:8080/a',
      'http://[::1]/c',
      'http://0.0.0.0/d',
      'http://10.0.0.1/e',
      'http://192.168.1.1/f',
      'http://169.254.169.254/latest/meta-data',
      'http://[fd00::1]/g',
      'http://[::ffff:127.0.0.1]/h',
      'http://2130706433/i',
    ];
    for (const [i, url] of literals.entries()) {
      const answer = await post(`${s.url}/v1/fast`, `127.0.1.${10 + i}`, url);
      expect(answer.status, url).toBe(422);
      expect(answer.body).toMatchObject({ error: 'invalid_callback_url' });
      expect(answer.body.reason).toContain('not a publicly routable address');
    }
    expect(s.logs.filter((l) => l.event === 'scan_queued' || l.event === 'webhook_registered')).toHaveLength(0);
  });

  it('refuses to deliver to a host name that resolves to loopback', async () => {
    const hooks = await receiver();
    const s = await server({ allowPrivateCallbacks: false });
    const port = new URL(hooks.url('/')).port;
    expect((await post(`${s.url}/v1/fast`, '127.0.1.30', `http://localhost:${port}/b`)).status).toBe(200);
    await waitForLog(s, () => attempts(s.logs).length === 1);
    expect(attempts(s.logs)[0]).toMatchObject({ outcome: 'refused' });
    expect(hooks.received).toHaveLength(0);
  });
});

describe('webhook registrations per IP', () => {
  it('answers 429 with Retry-After over the limit, before anything starts; a POST without X-Callback-Url is not charged', async () => {
    const hooks = await receiver();
    const s = await server({ limits: { ...NO_LIMITS, webhooksPerIp: { max: 2, windowSeconds: 3600 } } });
    const caller = '127.0.0.240';
    expect((await post(`${s.url}/v1/fast`, caller, hooks.url('/one'))).status).toBe(200);
    expect((await post(`${s.url}/v1/fast`, caller, hooks.url('/two'))).status).toBe(200);
    expect((await post(`${s.url}/v1/fast`, caller)).status).toBe(200); // no callback: not charged

    const response = await callerFetch(caller)(`${s.url}/v1/deep`, { method: 'POST', headers: { 'x-callback-url': hooks.url('/three') } });
    const body = (await response.json()) as Record<string, unknown>;
    validateResponse('POST', '/v1/deep', response.status, body);
    expect(response.status).toBe(429);
    expect(body).toMatchObject({ error: 'rate_limited', retry_after: 1800 });
    expect(body.reason).toContain('webhook registrations are limited to 2 per 3600 s for 127.0.0.240');
    expect(response.headers.get('retry-after')).toBe('1800');
    expect(response.headers.get('x-ratelimit-limit')).toBe('2');
    // Nothing half-happened: no deep scan, no third registration.
    expect(s.logs.filter((l) => l.event === 'scan_queued' && l.scanType === 'deep')).toHaveLength(0);
    expect(s.logs.filter((l) => l.event === 'webhook_registered')).toHaveLength(2);
    expect(s.logs.find((l) => l.event === 'scan_refused' && l.ip === caller)).toMatchObject({ limit: 'webhooksPerIp', error: 'rate_limited' });

    expect((await post(`${s.url}/v1/fast`, '127.0.0.241', hooks.url('/other'))).status).toBe(200); // another caller
    await hooks.waitFor('/two', 1);
    await pollUntilFinal(callerFetch(caller), `${s.url}/v1/fast`);
    await pollUntilFinal(callerFetch('127.0.0.241'), `${s.url}/v1/fast`);
  });
});

describe('durability', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function process(dataDir: string, config: object): Promise<ServerProcess> {
    const started = await startServerProcess(dataDir, { allowPrivateCallbacks: true, ...config });
    cleanups.push(() => {
      if (started.child.exitCode === null) started.child.kill('SIGKILL');
    });
    return started;
  }

  it('delivers after a restart what a crash left owed, mid-retries', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-hook-'));
    dirs.push(dataDir);
    const hooks = await receiver();
    hooks.answer('/later', 500, 200);
    const first = await process(dataDir, { webhooks: { retryDelaysSeconds: [1.5], timeoutSeconds: 2 } });
    await post(`${first.url}/v1/fast`, '127.0.0.86', hooks.url('/later'));
    await hooks.waitFor('/later', 1); // the first attempt failed; the retry is stored for 1.5 s later
    first.child.kill('SIGKILL');
    await first.exited;
    const crashedAt = Date.now();
    const second = await process(dataDir, { webhooks: { retryDelaysSeconds: [1.5], timeoutSeconds: 2 } });
    const [failed, delivered] = await hooks.waitFor('/later', 2);
    expect(delivered!.at).toBeGreaterThan(crashedAt);
    expect(delivered!.headers['x-selfscan-delivery']).toBe(failed!.headers['x-selfscan-delivery']);
    expect(delivered!.body).toBe(failed!.body);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(second.logs.filter((l) => l.event === 'webhook_attempt').map((l) => l.outcome)).toEqual(['delivered']);
  });

  it('notifies once after a restart how the scan in flight at the crash ended (it resumes)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-hook-'));
    dirs.push(dataDir);
    const hooks = await receiver();
    const first = await process(dataDir, {});
    await post(`${first.url}/v1/deep`, '127.0.0.87', hooks.url('/owed'));
    first.child.kill('SIGKILL');
    await first.exited;
    expect(hooks.received).toHaveLength(0);
    const second = await process(dataDir, {});
    const [hook] = await hooks.waitFor('/owed', 1);
    expect(hook!.headers['x-selfscan-event']).toBe('scan.complete');
    const result = await pollUntilFinal(callerFetch('127.0.0.87'), `${second.url}/v1/deep`);
    expect(result).toMatchObject({ ip: '127.0.0.87', status: 'complete' });
    expect(JSON.parse(hook!.body)).toEqual({ event: 'scan.complete', result });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hooks.received.filter((h) => h.path === '/owed')).toHaveLength(1);
  });
});

function waitForLog(s: TestServer, match: (line: Record<string, unknown>) => boolean): Promise<void> {
  return eventually(() => s.logs.some(match), 10_000, 'log line');
}
