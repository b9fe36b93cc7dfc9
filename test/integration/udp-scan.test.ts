// The udp scan through the real server, end to end: v1 polling, a v2
// stream, a webhook and the MCP tool, each from a loopback caller whose
// address runs a real memcached answering on UDP 11211 (the 2018
// amplifier), so the result must name it open, critical, with what it
// answered and its amplification; a caller with nothing on UDP gets a
// result with no port; starts coalesce, the udp limits answer 429 with
// Retry-After, and every scan leaves its log lines. Every body is checked
// against the OpenAPI document.
import { describe, expect, it } from 'vitest';

import { DEFAULT_CONFIG } from '../../src/config/config.js';
import { UDP_PROBES } from '../../src/udp/udp-probes.js';
import { udpSweep } from '../../src/udp/udp-sweep.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { connectMcp } from '../../support/mcp-client.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { silentUdpPorts } from '../../support/silent-udp-ports.js';
import { readSse } from '../../support/sse-reader.js';
import { startUdpMemcached } from '../../support/udp-memcached.js';
import { type ReceivedHook, startReceiver } from '../../support/webhook-receiver.js';
import { cleanupAfterEach } from '../helpers/test-cleanups.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const { cleanups } = cleanupAfterEach('selfscan-udp-');

/** The real server on port 0 (private callbacks allowed: the webhook receiver is on loopback), closed after the test. */
async function server(overrides: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const started = await startTestServer({ allowPrivateCallbacks: true, ...overrides });
  cleanups.push(() => started.close());
  return started;
}

/** A real memcached on UDP 11211 of `address`, until the test ends. */
async function memcachedOn(address: string): Promise<void> {
  const memcached = await startUdpMemcached(address);
  cleanups.push(() => memcached.close());
}

type Result = Record<string, unknown> & { ports_open: Record<string, unknown>[]; ports_filtered: unknown[] };

const memcachedOpen = {
  port: 11211,
  state: 'open',
  service: 'memcached',
  banner: expect.stringMatching(/version \d+\.\d+/),
  facts: {
    udp: {
      service: 'memcached',
      bytes_sent: expect.any(Number),
      bytes_received: expect.any(Number),
      amplification: expect.any(Number),
      evidence: [expect.stringMatching(/stats/)],
      details: { version: expect.stringMatching(/^\d+\.\d+/) },
    },
  },
  risk: { severity: 'critical', why: expect.stringContaining('UDP port 11211') },
};

function expectMemcachedOnly(result: Result): void {
  expect(result).toMatchObject({ scan_type: 'udp', status: 'complete', severity: 'critical', ports_filtered: [] });
  expect(result.ports_open).toHaveLength(1);
  expect(result.ports_open[0]).toMatchObject(memcachedOpen);
  const udp = (result.ports_open[0]!.facts as { udp: { bytes_sent: number; bytes_received: number; amplification: number } }).udp;
  expect(udp.bytes_received).toBeGreaterThan(udp.bytes_sent);
  expect(udp.amplification).toBeCloseTo(udp.bytes_received / udp.bytes_sent, 2);
}

describe('udp scan through the server', () => {
  it('v1: POST starts it, a second POST joins it, GET polls it to a result naming the memcached amplifier', async () => {
    const s = await server();
    const caller = '127.27.0.1';
    await memcachedOn(caller);
    const fetch = callerFetch(caller);
    const [first, second] = await Promise.all([fetch(`${s.url}/v1/udp`, { method: 'POST' }), fetch(`${s.url}/v1/udp`, { method: 'POST' })]);
    for (const response of [first, second]) {
      const body = await response.json();
      validateResponse('POST', '/v1/udp', response.status, body);
      expect(body).toMatchObject({ ip: caller, scan_type: 'udp' });
    }
    const result = (await pollUntilFinal(fetch, `${s.url}/v1/udp`)) as unknown as Result;
    expectMemcachedOnly(result);
    expect(s.logs.filter((line) => line.event === 'scan_queued' && line.scanType === 'udp')).toHaveLength(1);
    expect(s.logs.find((line) => line.event === 'scan_finished' && line.scanType === 'udp')).toMatchObject({ ip: caller, status: 'complete' });
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).toMatch(/^selfscan_scans_finished_total\{[^}]*type="udp"[^}]*status="complete"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^selfscan_scans_joined_total\{[^}]*type="udp"[^}]*\} 1$/m);
  });

  it('v2: one GET streams the scan to scan:complete with the same result', async () => {
    const s = await server();
    const caller = '127.27.0.2';
    await memcachedOn(caller);
    const events = await readSse(`${s.url}/v2/udp`, { fetch: callerFetch(caller) });
    expect(events.at(-1)?.name).toBe('scan:complete');
    expectMemcachedOnly(events.at(-1)!.data as Result);
  });

  it('a webhook brings the result to the caller', async () => {
    const s = await server();
    const caller = '127.27.0.3';
    await memcachedOn(caller);
    const hooks = await startReceiver();
    cleanups.push(() => hooks.close());
    const response = await callerFetch(caller)(`${s.url}/v1/udp`, { method: 'POST', headers: { 'x-callback-url': hooks.url('/udp') } });
    expect(response.status).toBe(200);
    const [hook] = (await hooks.waitFor('/udp', 1)) as [ReceivedHook];
    const body = JSON.parse(hook.body) as { event: string; result: Result };
    expect(body.event).toBe('scan.complete');
    expectMemcachedOnly(body.result);
  });

  it('the MCP tool udp_scan starts it and is polled to the result', async () => {
    const s = await server();
    const caller = '127.27.0.4';
    await memcachedOn(caller);
    const mcp = await connectMcp(s.url, caller);
    cleanups.push(() => mcp.close());
    let structured: Record<string, unknown> = {};
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
      const answer = await mcp.callTool({ name: 'udp_scan', arguments: {} });
      structured = answer.structuredContent as Record<string, unknown>;
      if (!['queued', 'running'].includes(String(structured.status))) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const { message, poll_after_seconds: _poll, ...result } = structured;
    expectMemcachedOnly(result as Result);
    expect(message).toMatch(/critical/);
  });

  it('a caller with nothing on UDP gets a complete result with no port', async () => {
    const s = await server();
    const result = (await (async () => {
      const fetch = callerFetch('127.27.0.5');
      await fetch(`${s.url}/v1/udp`, { method: 'POST' });
      return pollUntilFinal(fetch, `${s.url}/v1/udp`);
    })()) as unknown as Result;
    expect(result).toMatchObject({ scan_type: 'udp', status: 'complete', ports_open: [], ports_filtered: [] });
  });

  it('sends from the addresses of scanner.udpSourceAddresses, sharing the probes out', async () => {
    const sources = ['127.0.0.5', '127.0.0.6'];
    const s = await server({ scanner: { ...DEFAULT_CONFIG.scanner, udpSourceAddresses: sources } });
    const silent = await silentUdpPorts('127.27.0.7', [53, 123, 161, 11211]);
    cleanups.push(() => silent.close());
    const fetch = callerFetch('127.27.0.7');
    await fetch(`${s.url}/v1/udp`, { method: 'POST' });
    const result = (await pollUntilFinal(fetch, `${s.url}/v1/udp`)) as unknown as Result;
    expect(result).toMatchObject({ status: 'complete', ports_open: [] });
    expect(result.ports_filtered.map((port) => (port as { port: number }).port)).toEqual([53, 123, 161, 11211]);
    expect([...silent.senders()].sort()).toEqual(sources);
    expect(s.logs.find((line) => line.event === 'udp_sources')).toMatchObject({ addresses: sources });
  });

  it('a sweep from an address this host does not have fails at once and leaves no socket open', async () => {
    // A closed socket's handle goes in the loop's close phase, after timers and immediates: counted once the earlier tests' are gone.
    const udpSockets = async (): Promise<number> => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return process.getActiveResourcesInfo().filter((kind) => kind === 'UDPWrap').length;
    };
    const before = await udpSockets();
    await expect(udpSweep('127.27.0.8', UDP_PROBES, { sourceAddresses: ['192.0.2.77'] })).rejects.toThrow(/EADDRNOTAVAIL/);
    expect(await udpSockets()).toBe(before);
  });

  it('stops the start on a udp source address this host does not have, naming it', async () => {
    const config = { scanner: { ...DEFAULT_CONFIG.scanner, udpSourceAddresses: ['127.0.0.5', '192.0.2.77'] } };
    await expect(server(config)).rejects.toThrow(/scanner\.udpSourceAddresses: cannot send from 192\.0\.2\.77 \(EADDRNOTAVAIL\)/);
  });

  it('answers 429 with Retry-After past the per-IP udp limit, leaving fast scans alone', async () => {
    const s = await server({ limits: { ...NO_LIMITS, udpPerIp: { max: 1, windowSeconds: 60 } } });
    const fetch = callerFetch('127.27.0.6');
    expect((await fetch(`${s.url}/v1/udp`, { method: 'POST' })).status).toBe(200);
    await pollUntilFinal(fetch, `${s.url}/v1/udp`);
    const refused = await fetch(`${s.url}/v1/udp`, { method: 'POST' });
    const body = await refused.json();
    validateResponse('POST', '/v1/udp', refused.status, body);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(body).toMatchObject({ error: 'rate_limited', retry_after: expect.any(Number) });
    expect((await fetch(`${s.url}/v1/fast`, { method: 'POST' })).status).toBe(200);
  });
});
