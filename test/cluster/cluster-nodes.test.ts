// The cluster as operators run it: a redis-server of the test's own, two
// API nodes and three scanner nodes (NL, NL, FR) as real processes, the
// real addon scanning 127.0.0.1, driven over HTTP. Nodes are killed with
// kill -9 mid-work; Redis is stalled and resumed.
import dgram from 'node:dgram';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { UDP_PORTS } from '../../src/api/scan-type.js';
import { TRACEROUTE_PORTS } from '../../src/udp/udp-sweep.js';
import { healthOf, killAll, type NodeSpec, startNode } from '../../support/cluster-nodes.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { rawExchange } from '../../support/raw-http.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import type { ServerProcess } from '../../support/server-process.js';
import { silentUdpPorts } from '../../support/silent-udp-ports.js';
import { readSse, type SseEvent } from '../../support/sse-reader.js';
import { startUdpMemcached } from '../../support/udp-memcached.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';

const OPEN_PORTS = [20022, 40123, 65000];
/** The caller of the deep scan (X-Forwarded-For from the trusted loopback proxy): its own edge bucket. */
const DEEP_CALLER = '127.0.0.5';
const AS_DEEP_CALLER = { 'X-Forwarded-For': DEEP_CALLER };
const LIMITS = {
  edge: { max: 40, windowSeconds: 600 },
  fastPerAsn: { max: 0, windowSeconds: 3600 },
  deepPerIp: { max: 1, windowSeconds: 600 },
  deepPerAsn: { max: 0, windowSeconds: 3600 },
};

let redis: RedisServer;
let listeners: Listeners;
let receiver: Receiver;
const nodes: ServerProcess[] = [];
let apiNodes: ServerProcess[];
let scanners: { nl1: ServerProcess; nl2: ServerProcess; fr: ServerProcess };
/** One silent DNS server per API node: a PTR query shows which node is finishing a scan. */
const dnsQueries: { socket: dgram.Socket; queries: number; onQuery?: () => void }[] = [];

async function silentDns(): Promise<string> {
  const socket = dgram.createSocket('udp4');
  const entry: (typeof dnsQueries)[number] = { socket, queries: 0 };
  socket.on('message', () => {
    entry.queries++;
    entry.onQuery?.();
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  dnsQueries.push(entry);
  return `127.0.0.1:${socket.address().port}`;
}

async function node(spec: NodeSpec): Promise<ServerProcess> {
  const started = await startNode(redis.path, spec);
  nodes.push(started);
  return started;
}

async function apiNode(region = 'NL,FR'): Promise<ServerProcess> {
  const dns = { servers: [await silentDns()], timeoutMs: 2000 };
  const config = { limits: LIMITS, dns, allowPrivateCallbacks: true, trustProxy: ['127.0.0.1/32'], chunkWindow: 4 };
  return node({ role: 'api', region, config });
}

function logsOf(process: ServerProcess, event: string): Record<string, unknown>[] {
  return process.logs.filter((line) => line.event === event);
}

/** Waits for `count` log lines of `event` across `processes` (logs are written every 200 ms), then checks no more came. */
async function expectLogged(
  processes: readonly ServerProcess[],
  event: string,
  count: number,
  which: (line: Record<string, unknown>) => boolean = () => true,
): Promise<void> {
  const lines = () => processes.flatMap((process) => logsOf(process, event).filter(which));
  await eventually(() => lines().length >= count, 5000, `${count} ${event} lines`);
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(lines()).toHaveLength(count);
}

beforeAll(async () => {
  redis = await startRedisServer();
  listeners = await listenOn(DEEP_CALLER, OPEN_PORTS);
  receiver = await startReceiver();
  const [nl1, nl2, fr] = await Promise.all([
    node({ role: 'scanner', region: 'NL' }),
    node({ role: 'scanner', region: 'NL' }),
    node({ role: 'scanner', region: 'FR' }),
  ]);
  scanners = { nl1: nl1!, nl2: nl2!, fr: fr! };
  apiNodes = [await apiNode(), await apiNode()];
}, 60_000);

afterAll(async () => {
  await killAll(nodes);
  for (const { socket } of dnsQueries) socket.close();
  await listeners?.close();
  await receiver?.close();
  await redis?.close();
});

function expectGapless(events: SseEvent[]): void {
  const after = events.slice(events.findIndex((e) => e.name === 'scan:progress'));
  const ids = after.map((event) => event.id).join(',');
  for (const [i, event] of after.entries()) if (i > 0) expect(event.id, `event ${i} of ${after.length}: ids ${ids}`).toBe(after[i - 1]!.id + 1);
  expect(events.filter((e) => e.name === 'scan:complete' || e.name === 'scan:failed')).toHaveLength(1);
}

describe('a cluster of 2 API nodes and 3 scanner nodes (NL, NL, FR)', () => {
  it('serves /healthz on every node, and nothing else on a scanner node', async () => {
    expect(await healthOf(scanners.nl1)).toMatchObject({ ok: true, role: 'scanner', region: 'NL', redis: 'up' });
    expect(await healthOf(scanners.fr)).toMatchObject({ role: 'scanner', region: 'FR' });
    expect(await healthOf(apiNodes[0]!)).toMatchObject({ ok: true, role: 'api', redis: 'up' });
    const post = await fetch(`${scanners.nl1.url}/healthz`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    const other = await fetch(`${scanners.nl1.url}/v1/fast`, { method: 'POST' });
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: 'not_found' });
  });

  it("answers Redis-bound requests sent in one write in order on Node's front; uWS closes the connection (as the README says)", async () => {
    const api = apiNodes[1]!;
    const { http_server: front } = await healthOf(api);
    const get = (path: string): string => `GET ${path} HTTP/1.1\r\nHost: selfscan.test\r\nX-Forwarded-For: 127.0.0.9\r\n\r\n`;
    const got = await rawExchange(Number(new URL(api.url).port), get('/v1/fast') + get('/healthz') + get('/nope'), { answers: 3, waitMs: 5000 });
    if (front === 'uws') {
      expect(got.statuses).toEqual([]);
      expect(got.closed).toBe(true);
    } else {
      expect(front).toBe('node');
      expect(got.statuses).toEqual([200, 200, 404]);
      expect(got.closed).toBe(false);
    }
  });

  it('makes one deep scan of 20 concurrent starts on both API nodes; watchers on both get it gapless; an NL scanner killed mid-chunk changes nothing', async () => {
    const watchers = apiNodes.map((api) => readSse(`${api.url}/v2/deep`, { headers: AS_DEEP_CALLER }));
    const starts = await Promise.all(
      Array.from({ length: 20 }, (_, i) => fetch(`${apiNodes[i % 2]!.url}/v1/deep`, { method: 'POST', headers: AS_DEEP_CALLER })),
    );
    expect(starts.map((r) => r.status)).toEqual(Array(20).fill(200));
    // Kill an NL scanner while it holds a chunk.
    await eventually(async () => (await healthOf(scanners.nl1)).jobsInHand > 0, 20_000, 'NL scanner 1 holds a chunk');
    scanners.nl1.child.kill('SIGKILL');
    const [a, b] = await Promise.all(watchers);
    for (const events of [a!, b!]) {
      expectGapless(events);
      expect(events.at(-1)).toMatchObject({ name: 'scan:complete', data: { status: 'complete', region: 'NL' } });
      // every chunk is named once by the progress event that reports it, whichever node scanned it
      const named = events.flatMap((e) => (e.name === 'scan:progress' && e.data.chunk_index !== undefined ? [e.data.chunk_index as number] : []));
      expect(named.sort((x, y) => x - y)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    }
    await expectLogged(apiNodes, 'scan_queued', 1);
    const results = await Promise.all(
      apiNodes.map(async (api) => (await fetch(`${api.url}/v1/deep`, { headers: AS_DEEP_CALLER })).json() as Promise<Record<string, unknown>>),
    );
    expect(results[0]).toEqual(results[1]);
    const result = results[0]!;
    expect(result).toMatchObject({ status: 'complete', region: 'NL' });
    expect((result.ports_open as { port: number }[]).map((p) => p.port)).toEqual(expect.arrayContaining(OPEN_PORTS));
    const open = (result.ports_open as { port: number }[]).map((p) => p.port);
    expect(new Set(open).size).toBe(open.length); // no chunk counted twice
    expect(result.expires_at as number).toBe((result.completed_at as number) + 86_400);
    expect(logsOf(scanners.fr, 'chunk_scanned')).toHaveLength(0);
    await eventually(() => logsOf(scanners.nl2, 'chunk_scanned').length > 0, 5000, 'NL scanner 2 logged its chunks');
  }, 120_000);

  it('shares the deep-per-IP and edge limits across both API nodes', async () => {
    // The deep caller started a deep scan above: the next start on either node is refused.
    for (const api of apiNodes) {
      const refused = await fetch(`${api.url}/v1/deep`, { method: 'POST', headers: AS_DEEP_CALLER });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const caller = { 'X-Forwarded-For': '198.51.100.7' };
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.edge.max + 2; i++) statuses.push((await fetch(`${apiNodes[i % 2]!.url}/v1/fast`, { headers: caller })).status);
    expect(statuses).toEqual([...Array(LIMITS.edge.max).fill(200), 429, 429]);
  });

  it('resumes a stream on the other API node from Last-Event-ID without gaps', async () => {
    const first = await readSse(`${apiNodes[0]!.url}/v2/fast`, { until: (e) => e.name === 'scan:progress' });
    const last = first.at(-1)!;
    const rest = await readSse(`${apiNodes[1]!.url}/v2/fast`, { lastEventId: last.id });
    expect(rest.every((e) => e.id > last.id)).toBe(true);
    expect(rest.at(-1)).toMatchObject({ name: 'scan:complete' });
    expect(rest.some((e) => e.name === 'scan:queued')).toBe(false);
    await expectLogged(apiNodes, 'scan_queued', 1, (line) => line.scanType === 'fast');
  }, 60_000);

  it('runs a udp scan on a scanner node, again on another when the first is killed mid-sweep: memcached open and critical, the silent ports filtered', async () => {
    const caller = '127.0.0.9';
    const memcached = await startUdpMemcached(caller);
    // Every other port the sweep sends to takes the datagram and says nothing, no ICMP either (the
    // probed ports and every canary it may pick): the sweep runs its 3 s of silence, long enough to kill it.
    const canaries = Array.from({ length: TRACEROUTE_PORTS.count }, (_, i) => TRACEROUTE_PORTS.first + i);
    const silent = await silentUdpPorts(caller, [...UDP_PORTS.filter((port) => port !== 11211), ...canaries]);
    try {
      const nl3 = await node({ role: 'scanner', region: 'NL' }); // the deep scan's test killed NL scanner 1
      const asCaller = { 'X-Forwarded-For': caller };
      expect((await fetch(`${apiNodes[0]!.url}/v1/udp`, { method: 'POST', headers: asCaller })).status).toBe(200);
      let sweeping: ServerProcess | undefined;
      await eventually(
        async () => {
          for (const scanner of [scanners.nl2, nl3]) if ((await healthOf(scanner)).jobsInHand > 0) sweeping = scanner;
          return sweeping !== undefined;
        },
        10_000,
        'an NL scanner sweeping',
      );
      sweeping!.child.kill('SIGKILL');
      const other = sweeping === nl3 ? scanners.nl2 : nl3;
      let result: Record<string, unknown> = {};
      // Polled every second: the caller's edge limit here is 40 requests.
      for (const deadline = Date.now() + 35_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 1000))) {
        result = (await (await fetch(`${apiNodes[1]!.url}/v1/udp`, { headers: asCaller })).json()) as Record<string, unknown>;
        if (!['queued', 'running'].includes(String(result.status))) break;
      }
      expect(result).toMatchObject({ scan_type: 'udp', status: 'complete', severity: 'critical' });
      expect(result.ports_open).toEqual([
        expect.objectContaining({
          port: 11211,
          service: 'memcached',
          facts: { udp: expect.objectContaining({ service: 'memcached' }) },
          risk: expect.objectContaining({ severity: 'critical' }),
        }),
      ]);
      expect((result.ports_filtered as { port: number }[]).map((p) => p.port)).toEqual(UDP_PORTS.filter((port) => port !== 11211));
      await expectLogged(apiNodes, 'scan_queued', 1, (line) => line.scanType === 'udp');
      const scanId = apiNodes.flatMap((api) => logsOf(api, 'scan_queued')).find((line) => line.scanType === 'udp')!.scanId;
      await eventually(() => logsOf(other, 'chunk_scanned').some((line) => line.scanId === scanId), 5000, 'the other NL scanner swept it');
    } finally {
      await silent.close();
      await memcached.close();
    }
  }, 60_000);

  it('ends a scan that no scanner node ran as failed once its budget is over', async () => {
    const scanner = await node({ role: 'scanner', region: 'SE' });
    const api = await node({ role: 'api', region: 'SE', config: { scanBudgetSeconds: { fast: 1, deep: 60 }, trustProxy: ['127.0.0.1/32'] } });
    scanner.child.kill('SIGSTOP'); // alive to the registry for 6 s more, but it runs nothing
    try {
      const caller = { 'X-Forwarded-For': '127.0.0.6' };
      expect((await fetch(`${api.url}/v1/fast`, { method: 'POST', headers: caller })).status).toBe(200);
      let result: Record<string, unknown> = {};
      await eventually(
        async () => {
          result = (await (await fetch(`${api.url}/v1/fast`, { headers: caller })).json()) as Record<string, unknown>;
          return result.status !== 'queued';
        },
        40_000,
        'the overdue scan ends',
      );
      expect(result).toMatchObject({ status: 'failed', fail_reason: 'interrupted', chunks_complete: 0, region: 'SE' });
    } finally {
      scanner.child.kill('SIGCONT');
      await killAll([scanner, api]); // its finish worker must not take the next tests' finish jobs
    }
  }, 60_000);

  it('answers 503 for a region with no scanner node', async () => {
    const uk = await apiNode('UK');
    const response = await fetch(`${uk.url}/v1/fast`, { method: 'POST', headers: { 'X-Forwarded-For': '127.0.0.2' } });
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: 'unavailable', reason: expect.stringContaining('UK') });
    await killAll([uk]); // its finish worker must not take the next tests' finish jobs
  });

  it('finishes a scan, and delivers its webhook once, when the API node holding the finish step is killed', async () => {
    // The first PTR query of the finish step names the node doing it: that node dies at once.
    let killed: ServerProcess | undefined;
    for (const [i, api] of apiNodes.entries()) {
      dnsQueries[i]!.onQuery = () => {
        if (killed !== undefined) return;
        killed = api;
        api.child.kill('SIGKILL');
      };
    }
    const caller = { 'X-Forwarded-For': '127.0.0.3', 'X-Callback-Url': receiver.url('/hook') };
    const started = await fetch(`${apiNodes[0]!.url}/v1/fast`, { method: 'POST', headers: caller });
    expect(started.status).toBe(200);
    const [hook] = await receiver.waitFor('/hook', 1, 40_000);
    expect(killed).toBeDefined();
    expect(JSON.parse(hook!.body)).toMatchObject({ event: 'scan.complete', result: { ip: '127.0.0.3', status: 'complete' } });
    const survivor = apiNodes.find((api) => api !== killed)!;
    const result = (await (await fetch(`${survivor.url}/v1/fast`, { headers: { 'X-Forwarded-For': '127.0.0.3' } })).json()) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'complete', ip: '127.0.0.3' });
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.received.filter((h) => h.path === '/hook')).toHaveLength(1);
    apiNodes = [survivor];
  }, 60_000);

  it('answers 503 while Redis is unreachable, and loses no accepted scan', async () => {
    const api = apiNodes[0]!;
    const caller = { 'X-Forwarded-For': '127.0.0.4' };
    expect((await fetch(`${api.url}/v1/deep`, { method: 'POST', headers: caller })).status).toBe(200);
    redis.pause();
    try {
      const refused = await fetch(`${api.url}/v1/deep`, { headers: caller });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: 'unavailable', reason: expect.stringContaining('Redis') });
      expect((await healthOf(api)).redis).toBe('down');
    } finally {
      redis.resume();
    }
    await eventually(
      async () => ((await (await fetch(`${api.url}/v1/deep`, { headers: caller })).json()) as { status: string }).status === 'complete',
      60_000,
      'the accepted scan completes',
    );
  }, 90_000);
});
