// A multi-region scan through every interface of a real cluster on
// loopback (its own redis-server; scanner nodes in NL and FR, which see the
// same here; two API nodes): the POST and every poll as the OpenAPI
// document says, kept apart from the scan from one place; a stream with
// each region's progress, resumed on the other API node; the MCP tools'
// `regions`, their message and their refusal of an unknown region.
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callerFetch } from '../../support/callers.js';
import { killAll, startNode } from '../../support/cluster-nodes.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { connectMcp } from '../../support/mcp-client.js';
import { validateResponse, validateSseEvent } from '../../support/openapi-validator.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import type { ServerProcess } from '../../support/server-process.js';
import { readSse, type SseEvent } from '../../support/sse-reader.js';

const CALLER = '127.0.0.151';
const OPEN_PORTS = [20022, 40123];
const fetchAs = callerFetch(CALLER);

let redis: RedisServer;
let listeners: Listeners;
const nodes: ServerProcess[] = [];
let api: [ServerProcess, ServerProcess];

type Body = Record<string, unknown> & { status: string };
interface VantageBody {
  region: string;
  status: string;
  chunks_complete: number;
  total_chunks: number;
  ports_open: { port: number }[];
}

beforeAll(async () => {
  redis = await startRedisServer();
  listeners = await listenOn(CALLER, OPEN_PORTS);
  for (const region of ['NL', 'FR']) nodes.push(await startNode(redis.path, { role: 'scanner', region }));
  // Streams come through a trusted loopback proxy (readSse leaves from 127.0.0.1), naming CALLER.
  const config = { chunkWindow: 4, trustProxy: ['127.0.0.1/32'] };
  api = [await startNode(redis.path, { role: 'api', config }), await startNode(redis.path, { role: 'api', config })];
  nodes.push(...api);
}, 60_000);

afterAll(async () => {
  await killAll(nodes);
  await listeners?.close();
  await redis?.close();
});

async function request(method: 'GET' | 'POST', url: string): Promise<Body> {
  const response = await fetchAs(url, { method });
  const body = (await response.json()) as Body;
  validateResponse(method, new URL(url).pathname, response.status, body);
  return body;
}

async function pollFinal(url: string): Promise<Body> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 100))) {
    const body = await request('GET', url);
    if (body.status !== 'queued' && body.status !== 'running') return body;
    const vantages = body.vantages as { region: string; total_chunks: number }[];
    expect(vantages.map((v) => [v.region, v.total_chunks])).toEqual([
      ['FR', 64],
      ['NL', 64],
    ]);
  }
  throw new Error(`${url} did not finish`);
}

const openOf = (vantage: VantageBody): number[] => vantage.ports_open.map((p) => p.port).filter((port) => OPEN_PORTS.includes(port));

describe('a multi-region scan on a cluster', () => {
  it('runs from each region asked, polled under its own key (any order of the names), apart from the scan from one place', async () => {
    const started = await request('POST', `${api[0].url}/v1/deep?regions=NL,FR`);
    expect(started).toMatchObject({ status: 'queued', regions: ['FR', 'NL'] });
    const joined = await request('POST', `${api[1].url}/v1/deep?regions=FR,NL,FR`);
    expect(joined).toMatchObject({ regions: ['FR', 'NL'], total_chunks: 128 }); // coalesced: the counters of the scan in flight
    const final = await pollFinal(`${api[1].url}/v1/deep?regions=FR,NL`);
    expect(final).toMatchObject({ status: 'complete', regions: ['FR', 'NL'], differences: [] });
    const vantages = final.vantages as VantageBody[];
    expect(vantages.map((v) => [v.region, v.status, v.chunks_complete, openOf(v)])).toEqual([
      ['FR', 'complete', 64, OPEN_PORTS],
      ['NL', 'complete', 64, OPEN_PORTS],
    ]);
    expect((final.ports_open as { port: number }[]).map((p) => p.port)).toEqual(expect.arrayContaining(OPEN_PORTS));
    expect(await request('GET', `${api[0].url}/v1/deep`)).toMatchObject({ status: 'none' }); // the scan from one place is another
    const queuedLogs = nodes.flatMap((node) => node.logs.filter((line) => line.event === 'scan_queued' && line.scanType === 'deep'));
    expect(queuedLogs).toHaveLength(1);
  });

  it('streams each region’s progress, resumes on the other API node, and ends as the poll does', async () => {
    const headers = { 'X-Forwarded-For': CALLER };
    const first = await readSse(`${api[0].url}/v2/deep?regions=all`, {
      headers,
      until: (event) => event.name === 'scan:progress' && typeof event.data.region === 'string',
    });
    expect(first.at(-1)!.data.region).toMatch(/^(FR|NL)$/);
    const rest = await readSse(`${api[1].url}/v2/deep?regions=all`, { lastEventId: first.at(-1)!.id, headers });
    const events: SseEvent[] = [...first, ...rest];
    for (const event of events) validateSseEvent(event.name, event.data);
    const chunks = events.filter((event) => event.name === 'scan:progress' && event.data.region !== undefined);
    for (const event of chunks) expect(event.data.chunk_index as number).toBeLessThan(64);
    expect(new Set(chunks.map((event) => event.data.region))).toEqual(new Set(['FR', 'NL']));
    const terminal = events.at(-1)!;
    expect(terminal.name).toBe('scan:complete');
    expect(terminal.data).toEqual(await request('GET', `${api[0].url}/v1/deep?regions=all`));
  });
});

describe('the MCP tools on a cluster', () => {
  let mcp: Client;
  beforeAll(async () => {
    mcp = await connectMcp(api[0].url, CALLER);
  });
  afterAll(() => mcp?.close());

  it('scan from the regions asked and say what each saw', async () => {
    let structured: Body = { status: 'none' };
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && structured.status !== 'complete'; await new Promise((r) => setTimeout(r, 200))) {
      const result = await mcp.callTool({ name: 'fast_scan', arguments: { regions: 'all' } });
      expect(result.isError).not.toBe(true);
      structured = result.structuredContent as Body;
    }
    expect(structured).toMatchObject({ status: 'complete', regions: ['FR', 'NL'], differences: [] });
    expect(structured.message).toContain('From FR, NL: every region saw the same.');
  });

  it('refuse an unknown region, naming the known ones', async () => {
    const result = await mcp.callTool({ name: 'deep_scan', arguments: { regions: 'NL,XX' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: 'invalid_regions', reason: "unknown region XX; this cluster's regions: FR, NL" });
  });
});
