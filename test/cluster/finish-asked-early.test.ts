// A finish asked of a primary that lacks some of the scan's chunks: after a
// failover, ioredis sends a scanner's "the last chunk is in" again to the
// promoted replica, which may not have the last chunks (their jobs run
// again there). Here the ask is queued by hand (the product's own
// ChunkDispatch) while the only scanner node is stopped (SIGSTOP), so no
// chunk is in. The finish waits for the chunks and the scan ends complete
// and exact once the scanner runs again; a finish whose scan is past its
// deadline (and its grace) ends the scan with what it has. The promoted
// replica may lack the whole start too, until the API node that answered
// it writes it again (replica-wait.ts): here its keys are deleted before
// the ask and written again after it, by the product's own restore.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ScanRecord } from '../../src/model/scan-record.js';
import { ChunkDispatch, DEADLINE_GRACE_MS } from '../../src/redis/chunk-jobs.js';
import { inFlightKey, resultKey, scanKey, UNFINISHED_KEY } from '../../src/redis/redis-keys.js';
import { RedisScanStarts } from '../../src/redis/redis-scan-starts.js';
import { killAll, startNode } from '../../support/cluster-nodes.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import type { ServerProcess } from '../../support/server-process.js';
import { eventually } from '../helpers/eventually.js';
import { scanEnd } from '../helpers/scan-end.js';

const OPEN_PORTS = [20144, 40245, 65044];
const DEEP_CALLER = '127.0.0.176';
const FAST_CALLER = '127.0.0.177';
const RESTORED_CALLER = '127.0.0.178';
const as = (caller: string) => ({ 'X-Forwarded-For': caller });

let redis: RedisServer;
let client: Redis;
let dispatch: ChunkDispatch;
let listeners: Listeners;
let api: ServerProcess;
let scanner: ServerProcess;

beforeAll(async () => {
  redis = await startRedisServer();
  client = new Redis({ path: redis.path, maxRetriesPerRequest: null });
  dispatch = new ChunkDispatch(() => client);
  listeners = await listenOn(DEEP_CALLER, OPEN_PORTS);
  [api, scanner] = await Promise.all([
    startNode(redis.path, { role: 'api', region: 'NL', config: { trustProxy: ['127.0.0.1/32'] } }),
    startNode(redis.path, { role: 'scanner', region: 'NL' }),
  ]);
}, 60_000);

afterAll(async () => {
  scanner?.child.kill('SIGCONT');
  await killAll([api, scanner].filter((node) => node !== undefined));
  await dispatch?.close();
  client?.disconnect();
  await listeners?.close();
  await redis?.close();
});

/** The status GET /v1/<type> answers for `caller`. */
async function statusOf(type: 'deep' | 'fast', caller: string): Promise<string> {
  const body = (await (await fetch(`${api.url}/v1/${type}`, { headers: as(caller) })).json()) as { status: string };
  return body.status;
}

/** Starts a scan; its id. */
async function start(type: 'deep' | 'fast', caller: string): Promise<string> {
  expect((await fetch(`${api.url}/v1/${type}`, { method: 'POST', headers: as(caller) })).status).toBe(200);
  const scanId = await client.get(inFlightKey(type, caller));
  expect(scanId).toBeTypeOf('string');
  return scanId!;
}

/** Asks for the finish of `caller`'s scan as a scanner does when the last chunk is in; the finish's deadline is `deadline`. */
function askFinish(scanId: string, type: 'deep' | 'fast', caller: string, deadline: number): Promise<void> {
  return dispatch.finish({ scanId, ip: caller, scanType: type, deadline, reason: 'chunks-in' });
}

describe('a finish asked before every chunk is in', () => {
  it('waits for the chunks and the scan ends complete and exact; past the deadline it ends the scan with what it has', async () => {
    const truth = listeningPorts(DEEP_CALLER);
    expect(truth).toEqual(expect.arrayContaining(OPEN_PORTS));
    scanner.child.kill('SIGSTOP');
    const asked = Date.now();
    await askFinish(await start('deep', DEEP_CALLER), 'deep', DEEP_CALLER, asked + 30 * 60_000);
    await askFinish(await start('fast', FAST_CALLER), 'fast', FAST_CALLER, asked + 1000);
    // A start the primary lost: its keys deleted before the ask, written again after it.
    const lostId = await start('fast', RESTORED_CALLER);
    const record = JSON.parse((await client.get(resultKey('fast', RESTORED_CALLER)))!) as ScanRecord;
    await client
      .multi()
      .del(inFlightKey('fast', RESTORED_CALLER), resultKey('fast', RESTORED_CALLER), scanKey(lostId))
      .srem(UNFINISHED_KEY, resultKey('fast', RESTORED_CALLER))
      .exec();
    await askFinish(lostId, 'fast', RESTORED_CALLER, asked + 30 * 60_000);

    // No chunk ran: a finish that did not wait would have ended both scans (`failed`, nothing ran) within moments, and spent the lost one's ask.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(await statusOf('deep', DEEP_CALLER)).toBe('queued');
    expect(await statusOf('fast', FAST_CALLER)).toBe('queued');
    expect(await statusOf('fast', RESTORED_CALLER)).toBe('none');
    expect(await new RedisScanStarts(client).restore(record)).toBe('restored');
    expect(await statusOf('fast', RESTORED_CALLER)).toBe('queued');

    // Past its deadline and the grace, the fast scan's finish ends it with what it has: nothing.
    await eventually(async () => (await statusOf('fast', FAST_CALLER)) !== 'queued', 1000 + DEADLINE_GRACE_MS + 10_000, 'the fast scan ended');
    expect(Date.now() - asked).toBeGreaterThanOrEqual(1000 + DEADLINE_GRACE_MS);
    expect(await statusOf('fast', FAST_CALLER)).toBe('failed');
    expect(await statusOf('deep', DEEP_CALLER)).toBe('queued');

    scanner.child.kill('SIGCONT');
    const { result } = await scanEnd(`${api.url}/v1/deep`, as(DEEP_CALLER), 'the deep scan ended');
    expect(result).toMatchObject({ status: 'complete', ports_filtered: [] });
    expect((result.ports_open as { port: number }[]).map((p) => p.port)).toEqual(truth);
    // Its chunk job survived (only the record was lost): the scanner's own ask is the one that finishes it.
    const restored = await scanEnd(`${api.url}/v1/fast`, as(RESTORED_CALLER), 'the restored scan ended');
    expect(restored.result).toMatchObject({ status: 'complete', ports_open: [], ports_filtered: [] });
  }, 90_000);
});
