// One contract for the whole life of a scan, run against both deployments
// as operators run them (real processes, the real addon scanning loopback
// addresses, driven over HTTP): the single process, and a cluster of one
// API node and one scanner node on a redis-server of this file's own. Both
// must take a scan from POST to its stored result, join concurrent starts
// into one scan streamed to every watcher, resume a stream after
// Last-Event-ID without gaps or repeats, learn facts and changes, and owe
// each registering POST one webhook with the same result.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { readSse } from '../../support/sse-reader.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';

const CONFIG = { allowPrivateCallbacks: true, trustProxy: ['127.0.0.1/32'] };

interface Deployment {
  /** Where callers go. */
  api: ServerProcess;
  /** Every process, whose logs tell what happened. */
  processes: ServerProcess[];
}

const started: ServerProcess[] = [];
const redisServers: RedisServer[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  await killAll(started);
  for (const redis of redisServers) await redis.close();
  for (const close of closers) await close();
});

const DEPLOYMENTS: [string, () => Promise<Deployment>][] = [
  [
    'single process',
    async () => {
      const api = await startServerProcess(mkdtempSync(join(tmpdir(), 'selfscan-lifecycle-')), CONFIG);
      started.push(api);
      return { api, processes: [api] };
    },
  ],
  [
    'cluster',
    async () => {
      const redis = await startRedisServer();
      redisServers.push(redis);
      const scanner = await startNode(redis.path, { role: 'scanner', region: 'LC' });
      started.push(scanner);
      const api = await startNode(redis.path, { role: 'api', region: 'LC', config: CONFIG });
      started.push(api);
      return { api, processes: [api, scanner] };
    },
  ],
];

let nextCaller = 30;
/** A loopback address of its own (the caller and target of one test), with `ports` listening. */
async function caller(ports: number[]): Promise<{ headers: Record<string, string>; ip: string }> {
  const ip = `127.0.0.${nextCaller++}`;
  const listeners: Listeners = await listenOn(ip, ports);
  closers.push(() => listeners.close());
  return { ip, headers: { 'X-Forwarded-For': ip } };
}

async function receiver(): Promise<Receiver> {
  const receiving = await startReceiver();
  closers.push(() => receiving.close());
  return receiving;
}

function logged(deployment: Deployment, event: string, ip: string): Record<string, unknown>[] {
  return deployment.processes.flatMap((process) => process.logs.filter((line) => line.event === event && line.ip === ip));
}

async function finalResult(deployment: Deployment, path: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  let result: Record<string, unknown> = {};
  await eventually(
    async () => {
      result = (await (await fetch(`${deployment.api.url}${path}`, { headers })).json()) as Record<string, unknown>;
      return result.status === 'complete' || result.status === 'failed';
    },
    60_000,
    `${path} ends`,
  );
  return result;
}

describe.each(DEPLOYMENTS)('scan lifecycle contract: %s', (_, deploy) => {
  let deployment: Deployment;

  it('takes a fast scan from POST to its stored result', async () => {
    deployment = await deploy();
    const { ip, headers } = await caller([8080, 9200]);
    const post = await fetch(`${deployment.api.url}/v1/fast`, { method: 'POST', headers });
    expect(post.status).toBe(200);
    expect(await post.json()).toMatchObject({ ip, scan_type: 'fast', status: 'queued' });
    const result = await finalResult(deployment, '/v1/fast', headers);
    expect(result).toMatchObject({ ip, scan_type: 'fast', status: 'complete' });
    expect((result.ports_open as { port: number }[]).map((p) => p.port)).toEqual([8080, 9200]);
    expect(result.expires_at).toBe((result.completed_at as number) + 86_400);
    expect(await (await fetch(`${deployment.api.url}/v1/fast`, { headers })).json()).toEqual(result);
    await eventually(() => logged(deployment, 'scan_finished', ip).length === 1, 5000, 'the scan_finished line');
    expect(logged(deployment, 'scan_finished', ip)[0]).toMatchObject({ status: 'complete', open: 2 });
  }, 60_000);

  it('joins concurrent starts into one scan, streamed to every watcher up to the stored result', async () => {
    const { ip, headers } = await caller([8443]);
    const watchers = [readSse(`${deployment.api.url}/v2/deep`, { headers }), readSse(`${deployment.api.url}/v2/deep`, { headers })];
    const posts = await Promise.all(Array.from({ length: 6 }, () => fetch(`${deployment.api.url}/v1/deep`, { method: 'POST', headers })));
    expect(posts.map((post) => post.status)).toEqual(Array(6).fill(200));
    const streams = await Promise.all(watchers);
    const result = await finalResult(deployment, '/v1/deep', headers);
    expect((result.ports_open as { port: number }[]).map((p) => p.port)).toContain(8443); // with whatever listens on every address here
    for (const events of streams) {
      expect(events[0]).toMatchObject({ name: 'scan:queued', data: { ip, scan_type: 'deep' } });
      expect(events.at(-1)).toEqual({ name: 'scan:complete', id: events.at(-1)!.id, data: result });
      expect(events.filter((event) => event.name === 'scan:complete' || event.name === 'scan:failed')).toHaveLength(1);
      const ids = events.map((event) => event.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b)); // never back
      expect(new Set(ids.slice(1)).size).toBe(ids.length - 1); // after the first, each new
    }
    await eventually(() => logged(deployment, 'scan_finished', ip).length === 1, 5000, 'the scan_finished line');
    expect(logged(deployment, 'scan_queued', ip)).toHaveLength(1);
    expect(logged(deployment, 'scan_joined', ip).length).toBeGreaterThanOrEqual(6 + 2 - 1 - 1); // a watcher may have started it
  }, 60_000);

  it('resumes a stream after Last-Event-ID with only newer events, up to the end', async () => {
    const { headers } = await caller([20022]);
    const first = await readSse(`${deployment.api.url}/v2/deep`, { headers, until: (event) => event.name === 'scan:progress' });
    const last = first.at(-1)!;
    expect(last.name).toBe('scan:progress');
    const rest = await readSse(`${deployment.api.url}/v2/deep`, { headers, lastEventId: last.id });
    expect(rest.every((event) => event.id > last.id)).toBe(true);
    expect(rest.some((event) => event.name === 'scan:queued')).toBe(false);
    expect(rest.at(-1)).toMatchObject({ name: 'scan:complete' });
    expect((rest.at(-1)!.data.ports_open as { port: number }[]).map((p) => p.port)).toContain(20022);
  }, 60_000);

  it('learns facts where the scan ran, rates each open port, and names the ports opened since the last scan', async () => {
    const { ip, headers } = await caller([3306]);
    const page = await listenOn(ip, [8080], 'HTTP/1.0 200 OK\r\nServer: contract/1\r\n\r\n<title>Contract page</title>');
    closers.push(() => page.close());
    const scan = async () => {
      expect((await fetch(`${deployment.api.url}/v1/fast`, { method: 'POST', headers })).status).toBe(200);
      return finalResult(deployment, '/v1/fast', headers);
    };
    const first = await scan();
    expect(first).toMatchObject({ severity: 'high', changes: null });
    expect(first.ports_open).toMatchObject([
      { port: 3306, risk: { severity: 'high' } },
      { port: 8080, facts: { http: { status: 200, server: 'contract/1', title: 'Contract page' } }, risk: { severity: 'info' } },
    ]);
    const opened = await listenOn(ip, [5432]);
    closers.push(() => opened.close());
    const second = await scan();
    expect(second.changes).toStrictEqual({ since: first.completed_at, opened: [5432], closed: [], changed: [] });
    await eventually(() => logged(deployment, 'scan_finished', ip).length === 2, 5000, 'both scan_finished lines');
    expect(logged(deployment, 'scan_finished', ip)[1]).toMatchObject({ severity: 'high', opened: 1, closed: 0 });
  }, 60_000);

  it('owes each registering POST one signed webhook with the stored result', async () => {
    const hooks = await receiver();
    const { headers } = await caller([27017]);
    const posts = await Promise.all(
      ['/a', '/b'].map((path) => fetch(`${deployment.api.url}/v1/fast`, { method: 'POST', headers: { ...headers, 'X-Callback-Url': hooks.url(path) } })),
    );
    expect(posts.map((post) => post.status)).toEqual([200, 200]);
    const result = await finalResult(deployment, '/v1/fast', headers);
    const [a] = await hooks.waitFor('/a', 1, 20_000);
    const [b] = await hooks.waitFor('/b', 1, 20_000);
    for (const hook of [a!, b!]) {
      expect(hook.headers['x-selfscan-event']).toBe('scan.complete');
      expect(hook.headers['x-selfscan-signature']).toBeTruthy();
      expect(JSON.parse(hook.body)).toEqual({ event: 'scan.complete', result });
    }
    expect(a!.headers['x-selfscan-delivery']).not.toBe(b!.headers['x-selfscan-delivery']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.received).toHaveLength(2);
  }, 60_000);
});
