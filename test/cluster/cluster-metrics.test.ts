// GET /metrics on every node of a real cluster (a redis-server of the
// test's own, an API node and a scanner node as processes): the API node
// counts the scans it started and finished and its Redis commands (their
// failures too, while Redis is stalled), the scanner node the ports it
// probed and its jobs' wait; promtool parses both.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { parseSamples, promtoolCheck, type Sample, sampleValue } from '../../support/prometheus-text.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import type { ServerProcess } from '../../support/server-process.js';
import { readSse } from '../../support/sse-reader.js';

let redis: RedisServer;
let api: ServerProcess;
let scanner: ServerProcess;

beforeAll(async () => {
  redis = await startRedisServer();
  scanner = await startNode(redis.path, { role: 'scanner', region: 'NL' });
  api = await startNode(redis.path, { role: 'api', region: 'NL', config: { trustProxy: ['127.0.0.1/32'] } });
}, 60_000);

afterAll(async () => {
  await killAll([api, scanner].filter((node) => node !== undefined));
  await redis?.close();
});

async function scrape(node: ServerProcess): Promise<{ samples: Sample[]; text: string }> {
  const response = await fetch(`${node.url}/metrics`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { samples: parseSamples(text), text };
}

/** promtool's findings other than its lint of prom-client's default gauges named *_total. */
function promtoolFaults(text: string): string[] {
  return promtoolCheck(text)
    .output.split('\n')
    .filter((line) => line !== '' && !/^nodejs_active_\w+_total non-counter metrics should not have "_total" suffix$/.test(line));
}

/** The sum of every sample of `name`. */
const total = (samples: readonly Sample[], name: string): number => samples.filter((s) => s.name === name).reduce((sum, s) => sum + s.value, 0);

describe('metrics on every node of a cluster', () => {
  it('counts scans on the API node and probes on the scanner node', async () => {
    for (const caller of ['127.0.0.61', '127.0.0.62']) {
      const events = await readSse(`${api.url}/v2/fast`, { headers: { 'X-Forwarded-For': caller } });
      expect(events.at(-1)?.name).toBe('scan:complete');
    }

    const fromApi = await scrape(api);
    expect(promtoolFaults(fromApi.text)).toEqual([]);
    expect(sampleValue(fromApi.samples, 'selfscan_info', { role: 'api' })).toBe(1);
    expect(sampleValue(fromApi.samples, 'selfscan_scans_started_total', { type: 'fast', origin: 'v2', region: 'NL' })).toBe(2);
    expect(sampleValue(fromApi.samples, 'selfscan_scans_finished_total', { type: 'fast', status: 'complete', origin: 'v2', region: 'NL' })).toBe(2);
    expect(sampleValue(fromApi.samples, 'selfscan_http_request_duration_seconds_count', { route: '/v2/fast', method: 'GET', status: '200' })).toBe(2);
    expect(sampleValue(fromApi.samples, 'selfscan_queue_depth', { queue: 'NL' })).toBe(0);
    expect(total(fromApi.samples, 'selfscan_redis_command_duration_seconds_count')).toBeGreaterThan(0);

    const fromScanner = await scrape(scanner);
    expect(promtoolFaults(fromScanner.text)).toEqual([]);
    expect(sampleValue(fromScanner.samples, 'selfscan_info', { role: 'scanner' })).toBe(1);
    const engine = (fromScanner.samples.find((s) => s.name === 'selfscan_ports_probed_total')?.labels.engine ?? 'none') as string;
    expect(['syn', 'connect']).toContain(engine);
    expect(sampleValue(fromScanner.samples, 'selfscan_ports_probed_total', { engine, type: 'fast' })).toBe(2 * 32);
    expect(sampleValue(fromScanner.samples, 'selfscan_queue_wait_seconds_count', { type: 'fast' })).toBe(2);
    expect(sampleValue(fromScanner.samples, 'selfscan_queue_depth', { queue: 'NL' })).toBe(0);
    // The scanner node counts no scans of its own: the API node starts and finishes them.
    expect(total(fromScanner.samples, 'selfscan_scans_started_total')).toBe(0);
  }, 60_000);

  it("counts the API node's Redis commands that fail while Redis is stalled", async () => {
    const before = total((await scrape(api)).samples, 'selfscan_redis_command_errors_total');
    redis.pause();
    try {
      const response = await fetch(`${api.url}/v1/fast`, { headers: { 'X-Forwarded-For': '127.0.0.63' } });
      expect(response.status).toBe(503);
      await response.body?.cancel();
    } finally {
      redis.resume();
    }
    expect(total((await scrape(api)).samples, 'selfscan_redis_command_errors_total')).toBeGreaterThan(before);
  }, 30_000);
});
