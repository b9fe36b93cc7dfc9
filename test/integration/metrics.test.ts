// GET /metrics against the real server on port 0, after a scripted run of
// real scans, streams, a webhook and refusals from loopback callers: the
// counts equal what the test did, the histograms are filled, Prometheus's
// own parser (promtool) accepts the text, no label holds an address, and
// only the networks of metrics.allow may read it, on the HTTP port or on a
// port of its own.
import { afterEach, describe, expect, it } from 'vitest';

import { type Config, DEFAULT_CONFIG } from '../../src/config/config.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { parseSamples, promtoolCheck, type Sample, sampleValue } from '../../support/prometheus-text.js';
import { startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(overrides: Partial<Config> = {}): Promise<TestServer> {
  const started = await startTestServer(overrides);
  cleanups.push(() => started.close());
  return started;
}

/** GET /metrics from `caller`: its status and text. */
async function scrapeFrom(url: string, caller = '127.0.0.1'): Promise<{ status: number; text: string; type: string | null }> {
  const response = await callerFetch(caller)(`${url}/metrics`);
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
}

async function samplesOf(url: string): Promise<Sample[]> {
  const { status, text } = await scrapeFrom(url);
  expect(status).toBe(200);
  return parseSamples(text);
}

/** promtool's lint of prom-client's default gauges nodejs_active_{handles,requests,resources}_total. */
const PROM_CLIENT_DEFAULT_NAMES = /^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/;

const IP_TEXT = /\b\d{1,3}(\.\d{1,3}){3}\b|::/;

describe('a scripted run', () => {
  it('counts what happened: scans started, joined and ended, probes, streams, requests, a webhook', async () => {
    const hooks = await startReceiver();
    cleanups.push(() => hooks.close());
    const s = await server({ allowPrivateCallbacks: true });
    const engine = ((await (await fetch(`${s.url}/healthz`)).json()) as { engine: string }).engine;

    // Three fast scans, each a v2 stream read to its end.
    const fastCallers = ['127.0.0.71', '127.0.0.72', '127.0.0.73'];
    const streams = await Promise.all(fastCallers.map(async (caller) => (await callerFetch(caller)(`${s.url}/v2/fast`)).text()));
    for (const stream of streams) expect(stream).toContain('event: scan:complete');

    // A deep scan started with a webhook, joined by a second POST while it runs, polled to its end.
    const deepCaller = callerFetch('127.0.0.74');
    const started = await deepCaller(`${s.url}/v1/deep`, { method: 'POST', headers: { 'x-callback-url': hooks.url('/hook') } });
    expect(started.status).toBe(200);
    const joined = (await (await deepCaller(`${s.url}/v1/deep`, { method: 'POST' })).json()) as Record<string, unknown>;
    expect(joined.chunks_complete).toBeDefined(); // the body of a request that joined the scan in flight
    await pollUntilFinal(deepCaller, `${s.url}/v1/deep`, 60_000);
    await hooks.waitFor('/hook', 1);

    // A v2 stream held open while a scrape reads the gauge, then read to its end.
    const open = await callerFetch('127.0.0.75')(`${s.url}/v2/deep`);
    expect(sampleValue(await samplesOf(s.url), 'selfscan_sse_streams_open')).toBe(1);
    await open.text();
    expect((await callerFetch('127.0.0.75')(`${s.url}/nowhere`)).status).toBe(404);

    // The attempt is counted once the receiver's answer is read, a moment after the receiver has the hook.
    await eventually(async () => sampleValue(await samplesOf(s.url), 'selfscan_webhook_attempts_total', { outcome: 'delivered' }) === 1);
    const { status, text, type } = await scrapeFrom(s.url);
    expect(status).toBe(200);
    expect(type).toBe('text/plain; version=0.0.4; charset=utf-8');
    // promtool parses the whole text; its lint finds fault only with three names of prom-client's
    // default metrics (gauges named *_total), which Node dashboards expect as they are.
    const checked = promtoolCheck(text);
    const findings = checked.output.split('\n').filter((line) => line !== '');
    expect(findings.filter((line) => !PROM_CLIENT_DEFAULT_NAMES.test(line))).toEqual([]);
    expect(checked.status === 0 || findings.length > 0).toBe(true);
    const samples = parseSamples(text);
    const value = (name: string, labels: Record<string, string> = {}) => sampleValue(samples, name, labels);

    expect(value('selfscan_scans_started_total', { type: 'fast', origin: 'v2', region: 'local' })).toBe(3);
    expect(value('selfscan_scans_started_total', { type: 'deep', origin: 'v1', region: 'local' })).toBe(1);
    expect(value('selfscan_scans_started_total', { type: 'deep', origin: 'v2', region: 'local' })).toBe(1);
    expect(value('selfscan_scans_joined_total', { type: 'deep', origin: 'v1' })).toBe(1);
    expect(value('selfscan_scans_finished_total', { type: 'fast', status: 'complete', origin: 'v2', region: 'local' })).toBe(3);
    expect(value('selfscan_scans_finished_total', { type: 'deep', status: 'complete', origin: 'v1', region: 'local' })).toBe(1);
    expect(value('selfscan_scans_finished_total', { type: 'deep', status: 'complete', origin: 'v2', region: 'local' })).toBe(1);
    expect(value('selfscan_scan_duration_seconds_count', { type: 'fast', status: 'complete' })).toBe(3);
    expect(value('selfscan_scan_duration_seconds_count', { type: 'deep', status: 'complete' })).toBe(2);
    expect(value('selfscan_scan_duration_seconds_sum', { type: 'deep', status: 'complete' })).toBeGreaterThan(0);
    expect(value('selfscan_scan_duration_seconds_bucket', { type: 'deep', status: 'complete', le: '+Inf' })).toBe(2);
    expect(value('selfscan_queue_wait_seconds_count', { type: 'fast' })).toBe(3);
    expect(value('selfscan_queue_wait_seconds_count', { type: 'deep' })).toBe(2);
    expect(value('selfscan_queue_depth', { queue: 'deep' })).toBe(0);
    expect(value('selfscan_ports_probed_total', { engine, type: 'fast' })).toBe(3 * 32);
    expect(value('selfscan_ports_probed_total', { engine, type: 'deep' })).toBe(2 * 65535);
    // Exposed from the engine's totals (a loopback scan rarely has any silence to contradict).
    expect(samples.filter((sample) => sample.name === 'selfscan_silences_contradicted_total' && sample.labels.engine === engine)).toHaveLength(1);
    // SYNs by way: to a loopback target through IP, never to the device (none at all on the connect engine).
    expect(value('selfscan_syns_sent_total', { engine, way: 'device' })).toBe(0);
    if (engine === 'syn') expect(value('selfscan_syns_sent_total', { engine, way: 'ip' })).toBeGreaterThanOrEqual(3 * 32 + 2 * 65535);
    else expect(value('selfscan_syns_sent_total', { engine, way: 'ip' })).toBe(0);
    expect(value('selfscan_sse_streams_open')).toBe(0);
    expect(value('selfscan_webhook_delivery_attempts_count', { outcome: 'delivered' })).toBe(1);
    expect(value('selfscan_webhook_delivery_attempts_sum', { outcome: 'delivered' })).toBe(1);

    const requests = (labels: Record<string, string>) => value('selfscan_http_request_duration_seconds_count', labels);
    expect(requests({ route: '/v2/fast', method: 'GET', status: '200' })).toBe(3);
    expect(requests({ route: '/v1/deep', method: 'POST', status: '200' })).toBe(2);
    expect(requests({ route: '/v2/deep', method: 'GET', status: '200' })).toBe(1);
    expect(requests({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(value('selfscan_http_request_duration_seconds_bucket', { route: '/v2/fast', method: 'GET', status: '200', le: '+Inf' })).toBe(3);

    // Node's own metrics, and not one label that holds an address.
    expect(value('nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(value('process_resident_memory_bytes')).toBeGreaterThan(0);
    for (const sample of samples) for (const label of Object.values(sample.labels)) expect(label).not.toMatch(IP_TEXT);
  }, 120_000);
});

describe('refusals and who may read', () => {
  it('counts edge refusals by scope, and is never rate-limited itself', async () => {
    const s = await server({ limits: { ...NO_LIMITS, edge: { max: 3, windowSeconds: 60 } } });
    const caller = callerFetch('127.0.0.76');
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await caller(`${s.url}/openapi.json`)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    for (let i = 0; i < 5; i++) expect((await scrapeFrom(s.url)).status).toBe(200);
    const samples = await samplesOf(s.url);
    expect(sampleValue(samples, 'selfscan_refusals_total', { scope: 'edge', error: 'rate_limited' })).toBe(2);
    expect(sampleValue(samples, 'selfscan_http_request_duration_seconds_count', { route: '/openapi.json', method: 'GET', status: '429' })).toBe(2);
    expect(sampleValue(samples, 'selfscan_http_request_duration_seconds_count', { route: '/openapi.json', method: 'GET', status: '200' })).toBe(3);
  });

  it('counts scan refusals by the limit that refused', async () => {
    const s = await server({ limits: { ...NO_LIMITS, deepPerIp: { max: 1, windowSeconds: 300 } } });
    const caller = callerFetch('127.0.0.77');
    expect((await caller(`${s.url}/v1/deep`, { method: 'POST' })).status).toBe(200);
    await pollUntilFinal(caller, `${s.url}/v1/deep`, 60_000);
    expect((await caller(`${s.url}/v1/deep`, { method: 'POST' })).status).toBe(429);
    expect(sampleValue(await samplesOf(s.url), 'selfscan_refusals_total', { scope: 'deepPerIp', error: 'rate_limited' })).toBe(1);
  }, 90_000);

  it('answers only the networks of metrics.allow: a JSON 403 for others', async () => {
    const s = await server({ metrics: { allow: ['127.0.0.1/32'] } });
    expect((await scrapeFrom(s.url, '127.0.0.1')).status).toBe(200);
    const refused = await scrapeFrom(s.url, '127.0.0.2');
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text)).toMatchObject({ error: 'not_available' });
    expect(refused.text).toContain('metrics.allow');
    const posted = await callerFetch('127.0.0.1')(`${s.url}/metrics`, { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
  });

  it('by default answers loopback and private networks only', async () => {
    const s = await server();
    expect(s.server.routes['/metrics']).toBeDefined();
    const { metrics } = DEFAULT_CONFIG;
    expect(metrics.allow).toEqual(['127.0.0.0/8', '::1/128', '10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7']);
    expect(metrics.listen).toBeUndefined();
  });

  it('serves only /metrics on the port of metrics.listen, and not on the HTTP port', async () => {
    const s = await server({ metrics: { listen: '127.0.0.1:0', allow: ['127.0.0.0/8'] } });
    const port = s.server.metricsPort;
    expect(port).toBeGreaterThan(0);
    expect(port).not.toBe(s.server.port);
    const own = `http://127.0.0.1:${port}`;
    const scraped = await scrapeFrom(own);
    expect(scraped.status).toBe(200);
    expect(sampleValue(parseSamples(scraped.text), 'selfscan_info', { role: 'all' })).toBe(1);
    const other = await fetch(`${own}/v1/fast`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: string }).error).toBe('not_found');
    expect((await scrapeFrom(s.url)).status).toBe(404);
  });
});
