// A failover nobody crashed for (SENTINEL FAILOVER: maintenance): the
// primary is alive and demoted to a replica of the one promoted; the
// Sentinels close its clients' connections as they reconfigure it (and a
// command that still reached it would answer READONLY, on which every
// connection reconnects). Every connection (commands, Pub/Sub, BullMQ's
// workers and their blocking reads) must move to the new primary: scans
// started after it complete, and the nodes count the failover.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { parseSamples, sampleValue } from '../../support/prometheus-text.js';
import { type SentinelRedis, startSentinelRedis } from '../../support/redis-sentinels.js';
import type { ServerProcess } from '../../support/server-process.js';
import { readSse } from '../../support/sse-reader.js';
import { eventually } from '../helpers/eventually.js';

let redis: SentinelRedis;
let api: ServerProcess;
let scanner: ServerProcess;

beforeAll(async () => {
  redis = await startSentinelRedis();
  scanner = await startNode(redis.url, { role: 'scanner', region: 'NL' });
  api = await startNode(redis.url, { role: 'api', region: 'NL', config: { trustProxy: ['127.0.0.1/32'] } });
}, 60_000);

afterAll(async () => {
  await killAll([api, scanner].filter((node) => node !== undefined));
  await redis?.close();
});

const fastScan = (caller: string) => readSse(`${api.url}/v2/fast`, { headers: { 'X-Forwarded-For': caller } });

describe('a failover the Sentinels are asked for', () => {
  it('moves every connection to the new primary: scans after it complete, and it is counted', async () => {
    expect((await fastScan('127.0.0.81')).at(-1)).toMatchObject({ name: 'scan:complete' });
    const [first, second] = redis.servers;
    expect(await redis.primary()).toBe(`127.0.0.1:${first!.port}`);
    await redis.failover();
    await eventually(async () => (await redis.primary()) === `127.0.0.1:${second!.port}`, 20_000, 'the replica promoted');
    await eventually(() => api.logs.some((line) => line.event === 'redis_failover'), 20_000, 'the API node on the new primary');
    await eventually(() => scanner.logs.some((line) => line.event === 'redis_failover'), 20_000, 'the scanner node on the new primary');
    // Scans after the failover run through the workers' (formerly blocked) connections and the new subscriptions.
    for (const caller of ['127.0.0.82', '127.0.0.83']) {
      let events: Awaited<ReturnType<typeof fastScan>> = [];
      await eventually(
        async () => {
          events = await fastScan(caller).catch(() => []);
          return events.at(-1)?.name === 'scan:complete';
        },
        20_000,
        `a fast scan of ${caller} after the failover`,
      );
      expect(events.at(-1)).toMatchObject({ name: 'scan:complete', data: { status: 'complete' } });
    }
    const metrics = parseSamples(await (await fetch(`${api.url}/metrics`)).text());
    expect(sampleValue(metrics, 'selfscan_redis_failovers_total', {})).toBe(1);
  }, 120_000);
});
