// kill -9 of the Redis primary right after a 200 to a scan start (issue
// 43, case d). Replication is asynchronous: to make the replica's lag
// real, it replicates through a link that holds every byte 200 ms each way
// (test/helpers/lagging-link.ts) and drops what it holds when the primary
// dies. The API node that waits for the replica (redisWait, the default)
// answers the start only once the replica holds it: after the failover the
// scan completes, exact, on the promoted replica. A second API node told
// not to wait (redisWait.replicas 0) answers its start at once, and the
// same kill loses that scan: that is what the wait buys, and it shows the
// lag of this test is real.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { type SentinelRedis, startSentinelRedis } from '../../support/redis-sentinels.js';
import type { ServerProcess } from '../../support/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { startLaggingLink } from '../helpers/lagging-link.js';
import { scanEnd } from '../helpers/scan-end.js';

const BASE_PORT = 27400;
const LINK_PORT = BASE_PORT + 5;
const LAG_MS = 200;
const OPEN_PORTS = [20131, 40232, 65011];
const WAITED = '127.0.0.72';
const UNWAITED = '127.0.0.73';

let redis: SentinelRedis;
let listeners: Listeners;
let waiting: ServerProcess;
let notWaiting: ServerProcess;
let scanner: ServerProcess;

beforeAll(async () => {
  redis = await startSentinelRedis({
    basePort: BASE_PORT,
    replicaLink: (primaryPort) => startLaggingLink(LINK_PORT, primaryPort, LAG_MS),
    // A Sentinel "fixes" a replica that replicates from another address than the primary's (our link) once failover-timeout has passed.
    sentinelLines: ['sentinel failover-timeout selfscan 300000'],
  });
  listeners = await listenOn(WAITED, OPEN_PORTS);
  const api = { trustProxy: ['127.0.0.1/32'] };
  [scanner, waiting, notWaiting] = await Promise.all([
    startNode(redis.url, { role: 'scanner', region: 'NL' }),
    startNode(redis.url, { role: 'api', region: 'NL', config: { ...api, redisWait: { replicas: 1, timeoutMs: 5000 } } }),
    startNode(redis.url, { role: 'api', region: 'NL', config: { ...api, redisWait: { replicas: 0 } } }),
  ]);
}, 60_000);

afterAll(async () => {
  await killAll([scanner, waiting, notWaiting].filter((node) => node !== undefined));
  await listeners?.close();
  await redis?.close();
});

const as = (caller: string) => ({ 'X-Forwarded-For': caller });

describe('kill -9 of the primary right after a 200 to a scan start', () => {
  it('a start answered after WAIT completes exact on the new primary; one answered without it is lost', async () => {
    const [first, replica] = redis.servers;
    const truth = listeningPorts(WAITED);
    expect(truth).toEqual(expect.arrayContaining(OPEN_PORTS));

    const waitedAt = Date.now();
    const waited = await fetch(`${waiting.url}/v1/deep`, { method: 'POST', headers: as(WAITED) });
    const waitedMs = Date.now() - waitedAt;
    expect(waited.status).toBe(200);
    expect(await waited.json()).toMatchObject({ status: 'queued' });
    // The replica's acknowledgement crossed the link both ways.
    expect(waitedMs).toBeGreaterThanOrEqual(2 * LAG_MS);

    const unwaited = await fetch(`${notWaiting.url}/v1/fast`, { method: 'POST', headers: as(UNWAITED) });
    expect(unwaited.status).toBe(200);
    await redis.kill(first!.port);

    await eventually(async () => (await redis.primary()) === `127.0.0.1:${replica!.port}`, 30_000, 'the replica promoted');
    // Until it ends, every answer about the waited scan is a 503 of the window or the scan in flight: never `none`.
    const { result, seen } = await scanEnd(`${waiting.url}/v1/deep`, as(WAITED), 'the waited scan ended');
    expect([...seen].filter((status) => !['queued', 'running', 'complete'].includes(status))).toEqual([]);
    expect(result).toMatchObject({ status: 'complete' });
    expect((result.ports_open as { port: number }[]).map((p) => p.port)).toEqual(truth);
    expect(result.ports_filtered).toEqual([]);

    // The start nobody waited for was still on the link when the primary died.
    const lost = (await (await fetch(`${notWaiting.url}/v1/fast`, { headers: as(UNWAITED) })).json()) as Record<string, unknown>;
    expect(lost, 'without WAIT the acknowledged start is lost: the lag of this test is real').toMatchObject({ status: 'none' });
  }, 120_000);
});
