// A restart of a lone Redis primary with AOF on (appendfsync everysec):
// kill -9 right after a 200 to a scan start, then the primary started again
// on the same AOF. Redis writes the AOF to the kernel before it answers, so
// a process killed (not a machine losing power) loses nothing it answered:
// the scan acknowledged before the restart completes, exact; while Redis is
// away, a request that needs it gets 503 with Retry-After, none hangs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import type { ServerProcess } from '../../support/server-process.js';
import { type AofRedis, startAofRedis } from '../helpers/aof-redis.js';
import { scanEnd } from '../helpers/scan-end.js';

const REDIS_PORT = 27440;
const OPEN_PORTS = [20141, 40242, 65021];
const CALLER = '127.0.0.153';
const AS_CALLER = { 'X-Forwarded-For': CALLER };

let redis: AofRedis;
let listeners: Listeners;
let api: ServerProcess;
let scanner: ServerProcess;

beforeAll(async () => {
  redis = await startAofRedis(REDIS_PORT);
  listeners = await listenOn(CALLER, OPEN_PORTS);
  [scanner, api] = await Promise.all([
    startNode(redis.url, { role: 'scanner', region: 'NL' }),
    startNode(redis.url, { role: 'api', region: 'NL', config: { trustProxy: ['127.0.0.1/32'] } }),
  ]);
}, 60_000);

afterAll(async () => {
  await killAll([api, scanner].filter((node) => node !== undefined));
  await listeners?.close();
  await redis?.close();
});

describe('a restart of a lone primary with AOF on', () => {
  it('keeps a scan acknowledged right before kill -9: it completes exact after the restart', async () => {
    const truth = listeningPorts(CALLER);
    expect(truth).toEqual(expect.arrayContaining(OPEN_PORTS));
    const started = await fetch(`${api.url}/v1/deep`, { method: 'POST', headers: AS_CALLER });
    expect(started.status).toBe(200);
    await redis.kill();

    const away = await fetch(`${api.url}/v1/deep`, { headers: AS_CALLER, signal: AbortSignal.timeout(5000) });
    expect(away.status).toBe(503);
    expect(Number(away.headers.get('retry-after'))).toBeGreaterThan(0);
    await redis.restart();

    const { result, seen } = await scanEnd(`${api.url}/v1/deep`, AS_CALLER, 'the scan ended after the restart');
    expect([...seen].filter((status) => !['queued', 'running', 'complete'].includes(status))).toEqual([]);
    expect(result).toMatchObject({ status: 'complete' });
    expect((result.ports_open as { port: number }[]).map((p) => p.port)).toEqual(truth);
    expect(result.ports_filtered).toEqual([]);
  }, 120_000);
});
