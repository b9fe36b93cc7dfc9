// kill -9 of the Redis primary while webhooks are due (issue 43, case b):
// some deliveries are in the middle of their attempt (the receiver answers
// a second late), others are owed by scans started right before the kill
// and finished after it. Each scan has one registration and so one
// delivery id: every one arrives, with the scan's final result. A delivery
// whose attempt ended while no primary answered is sent again under the
// same id (its completion was never recorded), which receivers dedupe by;
// the duplicates are counted and logged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { type SentinelRedis, startSentinelRedis } from '../../support/redis-sentinels.js';
import type { ServerProcess } from '../../support/server-process.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';

const BASE_PORT = 27420;
/** Callers whose scans end before the kill (their deliveries are in flight), and callers whose scans start just before it. */
const EARLY = Array.from({ length: 6 }, (_, i) => `127.0.0.${100 + i}`);
const LATE = Array.from({ length: 4 }, (_, i) => `127.0.0.${110 + i}`);

let redis: SentinelRedis;
let hooks: Receiver;
let apis: ServerProcess[] = [];
let scanner: ServerProcess;

beforeAll(async () => {
  redis = await startSentinelRedis({ basePort: BASE_PORT });
  hooks = await startReceiver();
  hooks.answer('/hook', { status: 200, delayMs: 1000 });
  const config = { trustProxy: ['127.0.0.1/32'], allowPrivateCallbacks: true, webhooks: { retryDelaysSeconds: [0.5, 1, 2, 4], timeoutSeconds: 10 } };
  scanner = await startNode(redis.url, { role: 'scanner', region: 'NL' });
  apis = await Promise.all([0, 1].map(() => startNode(redis.url, { role: 'api', region: 'NL', config })));
}, 60_000);

afterAll(async () => {
  await killAll([...apis, scanner].filter((node) => node !== undefined));
  await hooks?.close();
  await redis?.close();
});

/** POST /v1/fast as `caller` with a webhook, on one of the API nodes. */
async function startWithHook(caller: string, i: number): Promise<void> {
  const headers = { 'X-Forwarded-For': caller, 'X-Callback-Url': hooks.url('/hook') };
  const response = await fetch(`${apis[i % apis.length]!.url}/v1/fast`, { method: 'POST', headers });
  expect(response.status, await response.text()).toBe(200);
}

describe('kill -9 of the primary while webhooks are due', () => {
  it('delivers every webhook owed, each delivery id at least once, with the final result', async () => {
    await Promise.all(EARLY.map(startWithHook));
    await hooks.waitFor('/hook', 2, 20_000); // deliveries under way: the receiver holds each answer for a second
    await Promise.all(LATE.map(startWithHook));
    await redis.kill(redis.servers[0]!.port);

    const callers = [...EARLY, ...LATE];
    const ipOf = (body: string): string => (JSON.parse(body) as { result: { ip: string } }).result.ip;
    await eventually(() => new Set(hooks.received.map((hook) => ipOf(hook.body))).size === callers.length, 60_000, 'a webhook for every scan');
    await new Promise((resolve) => setTimeout(resolve, 3000)); // a redelivery still under way arrives too

    const byDelivery = new Map<string, string[]>();
    for (const hook of hooks.received) {
      const id = String(hook.headers['x-selfscan-delivery']);
      byDelivery.set(id, [...(byDelivery.get(id) ?? []), hook.body]);
    }
    const duplicates = hooks.received.length - byDelivery.size;
    console.log(`webhooks across a failover: ${byDelivery.size} delivery ids, ${hooks.received.length} requests, ${duplicates} duplicates`);
    // One delivery id per scan, each for its own scan.
    expect(byDelivery.size).toBe(callers.length);
    expect(new Set([...byDelivery.values()].map((bodies) => ipOf(bodies[0]!)))).toEqual(new Set(callers));
    for (const bodies of byDelivery.values()) {
      const ips = new Set(bodies.map(ipOf));
      expect(ips.size, 'a delivery id names one scan').toBe(1);
      for (const body of bodies) expect(JSON.parse(body)).toMatchObject({ event: 'scan.complete', result: { status: 'complete' } });
    }
    for (const hook of hooks.received) expect(hook.headers['x-selfscan-event']).toBe('scan.complete');
  }, 120_000);
});
