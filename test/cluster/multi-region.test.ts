// Multi-region scans end to end: a redis-server of the test's own, scanner
// nodes of three regions (NL, NL, FR, UK), each a real `selfscan serve`
// process inside its region's network namespace with its own source
// address, and API nodes in the root namespace. The target is a netns host
// whose firewall answers some ports differently to some regions
// (support/region-namespaces.ts): 8080 dropped from FR, 25 and 40022 reset
// from UK, 22 open everywhere. The test calls the API nodes over loopback
// as the target (X-Forwarded-For from the trusted loopback proxy), so every
// region scans the target, and checks each region's view, the union and the
// differences against the firewall's truth. Scanner nodes are killed with
// kill -9 mid-scan.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SCAN_PROFILES, type ScanType } from '../../src/api/scan-type.js';
import { healthOf, killAll, type NodeSpec, startNode } from '../../support/cluster-nodes.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { validateResponse, validateSseEvent } from '../../support/openapi-validator.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { createRegionNamespaces, type RegionNamespaces } from '../../support/region-namespaces.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { readSse } from '../../support/sse-reader.js';
import { startUdpMemcached, type UdpMemcached } from '../../support/udp-memcached.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';

/** The regions, sorted as the service lists them. */
const REGIONS = ['FR', 'NL', 'UK'];
/** A few filtered ports for every region, so each view has some. */
const FILTERED = { from: 30000, to: 30009 };
/** The target's memcached on UDP: open from NL, dropped from FR, refused (ICMP port unreachable) to UK. */
const UDP_MEMCACHED = { from: 11211, to: 11211 };
const API_CONFIG = { trustProxy: ['127.0.0.1/32'], allowPrivateCallbacks: true };

type Json = Record<string, unknown>;
interface PortEntry {
  port: number;
}
interface VantageBody {
  region: string;
  status: string;
  fail_reason?: string;
  duration_ms: number;
  chunks_complete: number;
  total_chunks: number;
  ports_open: PortEntry[];
  ports_filtered: PortEntry[];
}
interface Difference {
  port: number;
  open: string[];
  filtered: string[];
  closed: string[];
  unknown: string[];
}

let redis: RedisServer;
let fixture: RegionNamespaces;
let receiver: Receiver;
let memcached: UdpMemcached;
const nodes: ServerProcess[] = [];
let scanners: { nl1: ServerProcess; nl2: ServerProcess; fr: ServerProcess; uk: ServerProcess };
let apiNodes: ServerProcess[];
let asTarget: Record<string, string>;

async function node(spec: NodeSpec): Promise<ServerProcess> {
  const started = await startNode(redis.path, spec);
  nodes.push(started);
  return started;
}

function scannerIn(region: string): Promise<ServerProcess> {
  const place = fixture.regions.find((r) => r.region === region)!.place;
  return node({ role: 'scanner', region, place });
}

function apiNode(config: object = {}): Promise<ServerProcess> {
  return node({ role: 'api', config: { ...API_CONFIG, ...config } });
}

const portsOf = (list: readonly PortEntry[]): number[] => list.map((p) => p.port);
const logsOf = (process: ServerProcess, event: string): Json[] => process.logs.filter((line) => line.event === event);

async function getJson(url: string, headers: Record<string, string> = asTarget): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { headers });
  return { status: response.status, body: (await response.json()) as Json };
}

/** POST /v1/`scanType`?regions=all on `api` as the target: its 200 body, checked against the OpenAPI document. */
async function startFromEveryRegion(api: ServerProcess, scanType: ScanType): Promise<Json> {
  const post = await fetch(`${api.url}/v1/${scanType}?regions=all`, { method: 'POST', headers: asTarget });
  expect(post.status).toBe(200);
  const queued = (await post.json()) as Json;
  validateResponse('POST', `/v1/${scanType}`, 200, queued);
  return queued;
}

/** Polls GET `path` (with its query) on `api` until the scan is no longer queued or running. */
async function finalResult(api: ServerProcess, path: string, timeoutMs: number, headers = asTarget): Promise<Json> {
  let body: Json = {};
  await eventually(
    async () => {
      body = (await getJson(`${api.url}${path}`, headers)).body;
      return body.status !== 'queued' && body.status !== 'running';
    },
    timeoutMs,
    `${path} ends`,
  );
  validateResponse('GET', path.split('?')[0]!, 200, body);
  return body;
}

/** What a scan of `scanType` from `region` alone should find, by port number. */
function truthFrom(region: string, scanType: ScanType): { open: number[]; filtered: number[] } {
  return fixture.expected([region], scanType).vantages[0]!;
}

/** Checks one region's view against the firewall's truth from that region. */
function expectExactVantage(vantage: VantageBody, scanType: ScanType): void {
  const truth = truthFrom(vantage.region, scanType);
  const total = SCAN_PROFILES[scanType].totalChunks;
  expect(vantage, `region ${vantage.region}`).toMatchObject({ status: 'complete', chunks_complete: total, total_chunks: total });
  expect(portsOf(vantage.ports_open), `open from ${vantage.region}`).toEqual(truth.open);
  expect(portsOf(vantage.ports_filtered), `filtered from ${vantage.region}`).toEqual(truth.filtered);
  expect(vantage.duration_ms).toBeGreaterThan(0);
}

/** Checks a finished multi-region result: each region exact, the union, the differences. */
function expectExact(result: Json, scanType: ScanType, regions: readonly string[]): void {
  expect(result).toMatchObject({ status: 'complete', scan_type: scanType, ip: fixture.target.ipv4, regions });
  const vantages = result.vantages as VantageBody[];
  expect(vantages.map((v) => v.region)).toEqual(regions);
  for (const vantage of vantages) expectExactVantage(vantage, scanType);
  const expected = fixture.expected(regions, scanType);
  expect(portsOf(result.ports_open as PortEntry[])).toEqual(expected.open);
  expect(portsOf(result.ports_filtered as PortEntry[])).toEqual(expected.filtered);
  expect(result.differences).toEqual(expected.differences);
}

beforeAll(async () => {
  redis = await startRedisServer();
  fixture = await createRegionNamespaces({
    regions: ['NL', 'FR', 'UK'],
    // Every ICMP port unreachable at once: each region's udp scan meets 19 closed ports.
    target: { filtered: FILTERED, icmpRatelimitMs: 0 },
    rules: [
      { region: 'FR', ports: { from: 8080, to: 8080 }, answer: 'drop' },
      { region: 'UK', ports: { from: 25, to: 25 }, answer: 'reset' },
      { region: 'UK', ports: { from: 40022, to: 40022 }, answer: 'reset' },
      { region: 'FR', ports: UDP_MEMCACHED, protocol: 'udp', answer: 'drop' },
      { region: 'UK', ports: UDP_MEMCACHED, protocol: 'udp', answer: 'reset' },
    ],
  });
  memcached = await startUdpMemcached(fixture.target.ipv4, fixture.target.name);
  asTarget = { 'X-Forwarded-For': fixture.target.ipv4 };
  receiver = await startReceiver();
  const [nl1, nl2, fr, uk] = await Promise.all([scannerIn('NL'), scannerIn('NL'), scannerIn('FR'), scannerIn('UK')]);
  scanners = { nl1: nl1!, nl2: nl2!, fr: fr!, uk: uk! };
  apiNodes = await Promise.all([apiNode(), apiNode()]);
}, 90_000);

afterAll(async () => {
  await killAll(nodes);
  await receiver?.close();
  await memcached?.close();
  await fixture?.close();
  await redis?.close();
});

describe('the fixture', () => {
  it('runs each scanner node inside its region, reachable from the test at its region address', async () => {
    for (const [process, region] of [
      [scanners.nl1, 'NL'],
      [scanners.nl2, 'NL'],
      [scanners.fr, 'FR'],
      [scanners.uk, 'UK'],
    ] as const) {
      const address = fixture.regions.find((r) => r.region === region)!.address;
      expect(new URL(process.url).hostname).toBe(address);
      expect(await healthOf(process)).toMatchObject({ ok: true, role: 'scanner', region, redis: 'up' });
    }
    // The firewall's truth differs by region: the scans below must find exactly this.
    expect(REGIONS.map((region) => [22, 25, 8080, 40022].map((port) => fixture.stateFrom(region, port)))).toEqual([
      ['open', 'open', 'filtered', 'open'],
      ['open', 'open', 'open', 'open'],
      ['open', 'closed', 'open', 'closed'],
    ]);
  });
});

describe('a single process', () => {
  it('answers 422 invalid_regions to any regions', async () => {
    const single = await startServerProcess(mkdtempSync(join(tmpdir(), 'selfscan-single-regions-')));
    nodes.push(single);
    try {
      const answers = [
        await fetch(`${single.url}/v1/fast?regions=all`, { method: 'POST' }),
        await fetch(`${single.url}/v1/fast?regions=NL`),
        await fetch(`${single.url}/v2/fast?regions=all`, { headers: { Accept: 'text/event-stream' } }),
      ];
      for (const response of answers) {
        expect(response.status).toBe(422);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await response.json()).toMatchObject({ error: 'invalid_regions' });
      }
      expect(logsOf(single, 'scan_queued')).toHaveLength(0);
    } finally {
      await killAll([single]);
    }
  });
});

describe('a cluster of 2 API nodes and scanner nodes in NL (2), FR and UK, each region in its own network namespace', () => {
  it('answers 422 invalid_regions to a malformed regions and to an unknown region, naming the known ones', async () => {
    const api = apiNodes[0]!;
    for (const [method, path] of [
      ['POST', '/v1/fast?regions=;;'],
      ['GET', '/v1/fast?regions=;;'],
      ['GET', '/v2/fast?regions=;;'],
      ['POST', '/v1/deep?regions=NL,'],
    ] as const) {
      const response = await fetch(`${api.url}${path}`, { method, headers: asTarget });
      expect(response.status, `${method} ${path}`).toBe(422);
      const body = await response.json();
      validateResponse(method, path.split('?')[0]!, 422, body);
      expect(body).toMatchObject({ error: 'invalid_regions' });
    }
    for (const [method, path] of [
      ['POST', '/v1/fast?regions=NL,XX'],
      ['GET', '/v1/fast?regions=NL,XX'],
      ['GET', '/v2/fast?regions=NL,XX'],
    ] as const) {
      const unknown = await fetch(`${api.url}${path}`, { method, headers: asTarget });
      expect(unknown.status, `${method} ${path}`).toBe(422);
      const body = (await unknown.json()) as Json;
      expect(body).toMatchObject({ error: 'invalid_regions' });
      expect(body.reason).toContain('XX');
      expect(body.reason).toContain('FR, NL, UK');
    }
    expect(apiNodes.flatMap((a) => logsOf(a, 'scan_queued'))).toHaveLength(0);
  });

  it('scans fast from every region: each region sees its own ports, the union and the differences are exact', async () => {
    const api = apiNodes[0]!;
    expect(await startFromEveryRegion(api, 'fast')).toMatchObject({ scan_type: 'fast', regions: REGIONS });
    const result = await finalResult(api, '/v1/fast?regions=all', 30_000);
    expectExact(result, 'fast', REGIONS);
    // By hand, what the firewall makes of the fast scan's ports: 25 closed from UK, 8080 filtered from FR.
    expect(result.differences).toEqual([
      { port: 25, open: ['FR', 'NL'], filtered: [], closed: ['UK'], unknown: [] },
      { port: 8080, open: ['NL', 'UK'], filtered: ['FR'], closed: [], unknown: [] },
    ]);
    // The other API node reads the same result; a scan from one place is another key.
    expect((await getJson(`${apiNodes[1]!.url}/v1/fast?regions=all`)).body).toEqual(result);
    expect((await getJson(`${api.url}/v1/fast?regions=FR,NL,UK`)).body).toMatchObject({ status: 'none' });
    // Every region scanned it, from its own namespace (logs are written every 200 ms).
    for (const scanner of [scanners.fr, scanners.uk]) await eventually(() => logsOf(scanner, 'chunk_scanned').length > 0, 5000, 'chunks logged');
  }, 60_000);

  it('scans udp from every region: the memcached amplifier open from NL, filtered from FR, closed from UK; the union, its facts and the differences say so', async () => {
    const api = apiNodes[0]!;
    expect(await startFromEveryRegion(api, 'udp')).toMatchObject({ scan_type: 'udp', regions: REGIONS, total_chunks: REGIONS.length });
    const result = await finalResult(api, '/v1/udp?regions=all', 60_000);
    expect(result).toMatchObject({ status: 'complete', scan_type: 'udp', ip: fixture.target.ipv4, regions: REGIONS, severity: 'critical' });
    const views = (result.vantages as VantageBody[]).map((v) => [v.region, v.status, portsOf(v.ports_open), portsOf(v.ports_filtered)]);
    expect(views).toEqual([
      ['FR', 'complete', [], [11211]],
      ['NL', 'complete', [11211], []],
      ['UK', 'complete', [], []],
    ]);
    // The union keeps what NL's probe learned: the amplifier, its figure and its risk.
    expect(result.ports_open).toEqual([
      expect.objectContaining({
        port: 11211,
        state: 'open',
        facts: { udp: expect.objectContaining({ service: 'memcached', amplification: expect.any(Number) }) },
        risk: expect.objectContaining({ severity: 'critical' }),
      }),
    ]);
    expect(result.ports_filtered).toEqual([]);
    expect(result.differences).toEqual([{ port: 11211, open: ['NL'], filtered: ['FR'], closed: ['UK'], unknown: [] }]);
    expect((await getJson(`${apiNodes[1]!.url}/v1/udp?regions=all`)).body).toEqual(result);
    // Each region's scanner nodes swept it, from their own namespace. Logs are written every 200 ms, and a
    // udp scan of this host can end sooner: the API node's scan_queued line too is waited for.
    const scanId = () => logsOf(api, 'scan_queued').find((l) => l.scanType === 'udp')?.scanId;
    const swept = (...nodes: ServerProcess[]) => nodes.some((node) => logsOf(node, 'chunk_scanned').some((l) => l.scanId === scanId()));
    await eventually(
      () => scanId() !== undefined && swept(scanners.fr) && swept(scanners.uk) && swept(scanners.nl1, scanners.nl2),
      5000,
      'udp scan_queued logged, and its chunks in every region',
    );
  }, 90_000);

  it('streams a deep scan from every region: progress names each region and counts its chunks 0..63; the end equals GET', async () => {
    const api = apiNodes[1]!;
    const events = await readSse(`${api.url}/v2/deep?regions=all`, { headers: asTarget });
    for (const event of events) validateSseEvent(event.name, event.data);
    const end = events.at(-1)!;
    expect(end.name).toBe('scan:complete');
    const total = SCAN_PROFILES.deep.totalChunks;
    const progress = events.filter((e) => e.name === 'scan:progress');
    for (const event of progress) {
      expect(event.data.regions).toEqual(REGIONS);
      expect((event.data.vantages as { region: string }[]).map((v) => v.region)).toEqual(REGIONS);
    }
    const named = progress.filter((e) => e.data.chunk_index !== undefined);
    for (const region of REGIONS) {
      const indices = named.filter((e) => e.data.region === region).map((e) => e.data.chunk_index as number);
      expect(
        indices.sort((a, b) => a - b),
        `chunks of ${region}`,
      ).toEqual(Array.from({ length: total }, (_, i) => i));
    }
    expect(named.every((e) => REGIONS.includes(e.data.region as string))).toBe(true);
    // The last progress event shows every region done.
    const last = progress.at(-1)!.data.vantages as { region: string; chunks_complete: number; total_chunks: number; filtered_count: number }[];
    for (const vantage of last) {
      expect(vantage).toMatchObject({ chunks_complete: total, total_chunks: total, filtered_count: truthFrom(vantage.region, 'deep').filtered.length });
    }
    const result = await finalResult(api, '/v1/deep?regions=all', 5000);
    expect(end.data).toEqual(result);
    expectExact(result, 'deep', REGIONS);
    expect((result.differences as Difference[]).map((d) => d.port)).toEqual([25, 8080, 40022]);
  }, 90_000);

  it('coalesces identical regions requests on two API nodes into one scan, whose webhook fires once after every region ended', async () => {
    const [a, b] = apiNodes as [ServerProcess, ServerProcess];
    const hook = { ...asTarget, 'X-Callback-Url': receiver.url('/multi-region') };
    // The same regions in another order: one key (the sorted list).
    const [first, second] = await Promise.all([
      fetch(`${a.url}/v1/deep?regions=NL,FR`, { method: 'POST', headers: hook }),
      fetch(`${b.url}/v1/deep?regions=FR,NL`, { method: 'POST', headers: asTarget }),
    ]);
    expect([first!.status, second!.status]).toEqual([200, 200]);
    const bodies = [(await first!.json()) as Json, (await second!.json()) as Json];
    for (const body of bodies) {
      validateResponse('POST', '/v1/deep', 200, body);
      expect(body).toMatchObject({ scan_type: 'deep', regions: ['FR', 'NL'] });
    }
    // Both answers carry the scan's chunk counters, every region's chunks: the one that started it and the one that joined it.
    for (const body of bodies) expect(body).toMatchObject({ total_chunks: 2 * SCAN_PROFILES.deep.totalChunks });

    const result = await finalResult(a, '/v1/deep?regions=FR,NL', 60_000);
    expectExact(result, 'deep', ['FR', 'NL']);
    expect((result.differences as Difference[]).map((d) => d.port)).toEqual([8080]);

    const [delivery] = await receiver.waitFor('/multi-region', 1, 15_000);
    const payload = JSON.parse(delivery!.body) as { event: string; result: Json };
    expect(payload.event).toBe('scan.complete');
    expect(payload.result).toEqual(result);
    expect((payload.result.vantages as VantageBody[]).map((v) => [v.region, v.status])).toEqual([
      ['FR', 'complete'],
      ['NL', 'complete'],
    ]);

    // One scan: queued once on one node, joined once on the other, under the same id; one finish; one delivery.
    const queuedOn = apiNodes.map((api) => logsOf(api, 'scan_queued').filter((l) => JSON.stringify(l.regions) === '["FR","NL"]'));
    const joinedOn = apiNodes.map((api) => logsOf(api, 'scan_joined').filter((l) => l.regionsAsked === 'FR,NL'));
    const queuedCounts = queuedOn.map((lines) => lines.length);
    expect(queuedCounts.reduce((sum, n) => sum + n)).toBe(1);
    expect(joinedOn.map((lines) => lines.length)).toEqual(queuedCounts.map((n) => 1 - n));
    const queuedLines = queuedOn.flat();
    expect(joinedOn.flat()[0]!.scanId).toBe(queuedLines[0]!.scanId);
    const finished = () => apiNodes.flatMap((api) => logsOf(api, 'scan_finished').filter((l) => l.scanId === queuedLines[0]!.scanId));
    await eventually(() => finished().length === 1, 5000, 'scan_finished logged');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(receiver.received.filter((hook) => hook.path === '/multi-region')).toHaveLength(1);
    expect(finished()).toHaveLength(1);
    expect(finished()[0]).toMatchObject({ status: 'complete', regions: ['FR', 'NL'] });
    // Nothing scanned it from UK.
    expect(logsOf(scanners.uk, 'chunk_scanned').filter((l) => l.scanId === queuedLines[0]!.scanId)).toHaveLength(0);
  }, 90_000);

  it('charges each region as one scan against the deep limit, all or none', async () => {
    // Callers of their own (each region's scanners then scan their own namespace's loopback, all closed).
    const limits = (max: number) => ({ limits: { ...NO_LIMITS, deepPerIp: { max, windowSeconds: 600 } } });
    const [three, two] = await Promise.all([apiNode(limits(3)), apiNode(limits(2))]);
    try {
      const caller = { 'X-Forwarded-For': '127.0.0.21' };
      const admitted = await fetch(`${three.url}/v1/deep?regions=all`, { method: 'POST', headers: caller });
      expect(admitted.status).toBe(200);
      for (const path of ['/v1/deep?regions=NL', '/v1/deep']) {
        const refused = await fetch(`${three.url}${path}`, { method: 'POST', headers: caller });
        expect(refused.status, path).toBe(429);
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(await refused.json()).toMatchObject({ error: 'rate_limited' });
      }
      expect((await finalResult(three, '/v1/deep?regions=all', 60_000, caller)).status).toBe('complete');

      // Three regions can never fit a limit of two: 422 without a Retry-After to wait for, and nothing starts or is charged.
      const other = { 'X-Forwarded-For': '127.0.0.22' };
      const never = await fetch(`${two.url}/v1/deep?regions=all`, { method: 'POST', headers: other });
      expect(never.status).toBe(422);
      expect(never.headers.get('retry-after')).toBeNull();
      const refusal = (await never.json()) as Json;
      expect(refusal).toMatchObject({ error: 'invalid_regions' });
      expect(refusal.reason).toContain('a deep scan from 3 regions counts as 3 scans, more than the 2 per 600 s');
      expect((await getJson(`${two.url}/v1/deep?regions=all`, other)).body).toMatchObject({ status: 'none' });
      expect((await getJson(`${two.url}/v1/deep`, other)).body).toMatchObject({ status: 'none' });
      expect(logsOf(two, 'scan_queued')).toHaveLength(0);
      const fits = await fetch(`${two.url}/v1/deep?regions=NL,UK`, { method: 'POST', headers: other });
      expect(fits.status).toBe(200);
      expect((await finalResult(two, '/v1/deep?regions=NL,UK', 60_000, other)).status).toBe('complete');
      // Two more do not fit until the allowance is back: 429 with Retry-After, all or none.
      const later = await fetch(`${two.url}/v1/deep?regions=FR,NL`, { method: 'POST', headers: other });
      expect(later.status).toBe(429);
      expect(Number(later.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await later.json()) as Json).reason).toContain('a scan from 2 regions counts as 2');
      expect((await getJson(`${two.url}/v1/deep?regions=FR,NL`, other)).body).toMatchObject({ status: 'none' });
    } finally {
      await killAll([three, two]); // their finish workers must not outlive them
    }
  }, 120_000);

  it('finishes a deep scan whose NL scanner node is killed mid-chunk on the other NL node: every region complete and exact', async () => {
    const api = apiNodes[0]!;
    const post = await fetch(`${api.url}/v1/deep?regions=all`, { method: 'POST', headers: asTarget });
    expect(post.status).toBe(200);
    await eventually(async () => (await healthOf(scanners.nl1)).jobsInHand > 0, 20_000, 'NL scanner 1 holds a chunk');
    scanners.nl1.child.kill('SIGKILL');
    // In flight, GET shows each region's progress.
    const inFlight = (await getJson(`${api.url}/v1/deep?regions=all`)).body;
    validateResponse('GET', '/v1/deep', 200, inFlight);
    expect(inFlight).toMatchObject({ status: 'running', regions: REGIONS, total_chunks: REGIONS.length * SCAN_PROFILES.deep.totalChunks });
    const progress = inFlight.vantages as { region: string; chunks_complete: number; total_chunks: number; filtered_count: number }[];
    expect(progress.map((v) => v.region)).toEqual(REGIONS);
    for (const vantage of progress) expect(vantage.total_chunks).toBe(SCAN_PROFILES.deep.totalChunks);
    expect(progress.find((v) => v.region === 'NL')!.chunks_complete).toBeLessThan(SCAN_PROFILES.deep.totalChunks);
    const result = await finalResult(api, '/v1/deep?regions=all', 60_000);
    expectExact(result, 'deep', REGIONS);
    const scanId = apiNodes.flatMap((a) => logsOf(a, 'scan_queued')).at(-1)!.scanId;
    await eventually(() => logsOf(scanners.nl2, 'chunk_scanned').some((l) => l.scanId === scanId), 5000, 'NL scanner 2 scanned chunks of it');
  }, 90_000);

  it('reports a region whose only scanner node died as incomplete or failed once the budget is over, never drops it', async () => {
    // Two regions, so that FR ends well within the short budget on a busy machine too.
    const regions = ['FR', 'UK'];
    const short = await apiNode({ scanBudgetSeconds: { fast: 120, deep: 20 } });
    try {
      const post = await fetch(`${short.url}/v1/deep?regions=UK,FR`, { method: 'POST', headers: asTarget });
      expect(post.status).toBe(200);
      await eventually(async () => (await healthOf(scanners.uk)).jobsInHand > 0, 20_000, 'the UK scanner holds a chunk');
      scanners.uk.child.kill('SIGKILL');
      const result = await finalResult(short, '/v1/deep?regions=FR,UK', 60_000);
      expect(result.status).toBe('incomplete');
      expect(result.regions).toEqual(regions);
      const vantages = result.vantages as VantageBody[];
      expect(vantages.map((v) => v.region)).toEqual(regions);
      for (const vantage of vantages.filter((v) => v.region !== 'UK')) expectExactVantage(vantage, 'deep');
      const uk = vantages.find((v) => v.region === 'UK')!;
      expect(['incomplete', 'failed']).toContain(uk.status);
      expect(uk.chunks_complete).toBeLessThan(uk.total_chunks);
      if (uk.status === 'failed') expect(uk.fail_reason).toBe('interrupted');
      // What UK did verify is exact; a port of its unverified chunks is unknown from UK, never closed.
      const truth = truthFrom('UK', 'deep');
      for (const port of portsOf(uk.ports_open)) expect(truth.open).toContain(port);
      for (const port of portsOf(uk.ports_filtered)) expect(truth.filtered).toContain(port);
      for (const difference of result.differences as Difference[]) {
        const from = fixture.stateFrom('UK', difference.port);
        const listed = (['open', 'filtered', 'closed', 'unknown'] as const).filter((state) => difference[state].includes('UK'));
        expect(listed).toHaveLength(1);
        expect([from, 'unknown']).toContain(listed[0]);
      }
      // The union still holds every port open from FR.
      for (const port of truthFrom('FR', 'deep').open) expect(portsOf(result.ports_open as PortEntry[])).toContain(port);
    } finally {
      await killAll([short]);
    }
  }, 120_000);
});
