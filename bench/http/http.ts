// npm run bench:http — the HTTP interface under load, on both HTTP fronts
// (uWebSockets.js and node:http, setting http.server), two questions:
//
// 1. Throughput of GET /v1/fast answering a stored result, in one run, all
//    under wrk, alternating (the order rotates each round), medians:
//    (a) the real server on its uWS front against a bare uWebSockets.js app
//        answering the same bytes (goal ≥ 0.8× its requests/s);
//    (b) the real server on its Node front against a bare node:http server
//        answering the same bytes (goal ≥ 0.8×);
//    (c) the two fronts side by side (Node front ÷ uWS front, no goal).
//    All four servers live in this process; wrk cannot choose its source
//    address, so each server's stored result is 127.0.0.1's own fast scan.
//    Logging is on (level info, as in production) into /dev/null.
// 2. Memory per open v2 stream, on each front: `selfscan serve` as a child
//    process, N (default 10,000) streams from loopback callers held open at
//    once (--callers distinct ones, default 1,000; the rest join their
//    scans), the child's VmRSS before and after.
//
// wrk is installed when missing (as root, apt-get). Everything stays on
// loopback. Options: --runs (7), --seconds (5),
// --threads (2), --connections (64), --streams (10000), --callers (1000).
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

import { ensureCommand } from '../../scripts/ensure-command.mjs';
import type { HttpServerName } from '../../src/http/http-front.js';
import { startDnsServer } from '../../support/dns-server.js';
import { machineLine, median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';
import { type Memory, memoryAfterGc } from './http-memory.js';
import {
  blockDeepQueue,
  callerAddress,
  deepQueueStillBlocked,
  type HeldStreams,
  openStreams,
  type ServerChild,
  type StreamCounts,
  spawnServer,
  waitUntil,
} from './http-streams.js';
import {
  LOG_SINK,
  limitsOff,
  measuredRun,
  rawRequest,
  sameResponse,
  startBareNodeServer,
  startBareServer,
  startSelfscanWithResult,
  type Target,
  type WrkOptions,
  wrkRequestsPerSecond,
} from './http-throughput.js';

ensureCommand('wrk', 'wrk'); // the load generator

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '7' },
    seconds: { type: 'string', default: '5' },
    threads: { type: 'string', default: '2' },
    connections: { type: 'string', default: '64' },
    streams: { type: 'string', default: '10000' },
    callers: { type: 'string', default: '1000' },
  },
});
const runs = Math.max(1, Number(values.runs));
const wrk: WrkOptions = { threads: Number(values.threads), connections: Number(values.connections), seconds: Number(values.seconds) };
const streamCount = Math.max(1, Number(values.streams));
const callerCount = Math.min(streamCount, Math.max(1, Number(values.callers)));
const WARM_UP_STREAMS = 100;
/** Issues 29 and 41: each front serves a kept result at ≥ 0.8× the requests/s of its bare server answering the same bytes. */
const THROUGHPUT_GOAL = 0.8;
/** Each holds the blocking scan's PTR lookup 5 s (c-ares' longest timeout): 16 hold it 80 s. */
const SILENT_DNS_SERVERS = 16;
const BLOCKER = '127.4.0.1';
const FRONTS: readonly HttpServerName[] = ['uws', 'node'];
const FRONT_NAMES: Record<HttpServerName, string> = { uws: 'uWS front', node: 'Node front' };

// The whole bench stays under ~8 minutes; past that it kills what it started and fails.
let serverChild: ServerChild | undefined;
const watchdog = setTimeout(() => {
  console.error('bench:http: still running after 480 s; stopping');
  serverChild?.child.kill('SIGKILL');
  process.exit(1);
}, 480_000);

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** One server under wrk: its requests/s and the process's CPU per request, run by run. */
interface Contender {
  label: string;
  target: Target;
  rates: number[];
  cpu: number[];
}

const contender = (label: string, target: Target): Contender => ({ label, target, rates: [], cpu: [] });

/** One comparison of the table: `ours` ÷ `anchor`, with a goal or none. */
function comparisonRow(name: string, ours: Contender, anchor: Contender, goal: number | null): string {
  const ratio = median(ours.rates) / median(anchor.rates);
  const paired = ours.rates.map((rate, i) => rate / anchor.rates[i]!);
  const verdict = goal === null ? 'none (printed)' : `≥ ${goal}: ${ratio >= goal ? 'met' : 'NOT met'}`;
  const cpuRatio = median(anchor.cpu) / median(ours.cpu);
  return `| ${name} | ${fmt(median(ours.rates))} | ${fmt(median(anchor.rates))} | **${ratio.toFixed(2)}** | ${verdict} | ${fmt(Math.min(...paired), 2)}–${fmt(Math.max(...paired), 2)} | ${fmt(median(ours.cpu), 2)} | ${fmt(median(anchor.cpu), 2)} | ${cpuRatio.toFixed(2)} |`;
}

async function throughput(): Promise<string[]> {
  const started: Target[] = [];
  const start = async <T extends Target>(target: Promise<T>): Promise<T> => {
    const t = await target;
    started.push(t);
    return t;
  };
  try {
    const selfUws = await start(startSelfscanWithResult('uws'));
    const selfNode = await start(startSelfscanWithResult('node'));
    const bareUws = await start(startBareServer(selfUws.result));
    const bareNode = await start(startBareNodeServer(selfNode.result));
    if (!sameResponse(await rawRequest(bareUws.port, 'GET', '/v1/fast'), selfUws.result)) throw new Error('the bare uWS app does not answer the same response');
    if (!sameResponse(await rawRequest(bareNode.port, 'GET', '/v1/fast'), selfNode.result))
      throw new Error('the bare node:http server does not answer the same response');
    const uws = contender('selfscan, uWS front', selfUws);
    const bu = contender('bare uWS', bareUws);
    const node = contender('selfscan, Node front', selfNode);
    const bn = contender('bare node:http', bareNode);
    const all = [uws, bu, node, bn];
    const warmUp = { ...wrk, seconds: 1 };
    for (const c of all) await wrkRequestsPerSecond(c.target.port, warmUp);
    const loadBefore = load();
    for (let i = 0; i < runs; i++) {
      // The order rotates each round, so no server always follows the same one.
      for (let k = 0; k < all.length; k++) {
        const c = all[(i + k) % all.length]!;
        const run = await measuredRun(c.target.port, wrk);
        c.rates.push(run.rate);
        c.cpu.push(run.cpuMicrosPerRequest);
      }
    }
    const loadAfter = load();
    if (!sameResponse(await rawRequest(selfUws.port, 'GET', '/v1/fast'), selfUws.result)) throw new Error('the uWS front answered differently after the runs');
    if (!sameResponse(await rawRequest(selfNode.port, 'GET', '/v1/fast'), selfNode.result))
      throw new Error('the Node front answered differently after the runs');
    const headerCount = (r: typeof selfUws.result): number => r.headers.length;
    return [
      `GET /v1/fast, stored result (127.0.0.1's own fast scan, since wrk cannot choose its source address), wrk -t${wrk.threads} -c${wrk.connections} -d${wrk.seconds}s, ${runs} rounds, each round all four servers in turn (the order rotating), after a 1 s warm-up each; load average ${loadBefore} before the rounds, ${loadAfter} after:`,
      '',
      '| comparison | ours req/s (median) | anchor req/s (median) | ratio of medians | goal | per-round ratios | ours CPU µs/req (median) | anchor CPU µs/req (median) | anchor ÷ ours CPU per request |',
      '|---|---|---|---|---|---|---|---|---|',
      comparisonRow('(a) uWS front ÷ bare uWS', uws, bu, THROUGHPUT_GOAL),
      comparisonRow('(b) Node front ÷ bare node:http', node, bn, THROUGHPUT_GOAL),
      comparisonRow('(c) Node front ÷ uWS front', node, uws, null),
      '',
      `- same bytes: the uWS front and bare uWS answer the same status line, ${headerCount(selfUws.result)} header lines (Date aside) and ${selfUws.result.body.length}-byte JSON body; the Node front and bare node:http the same status line, ${headerCount(selfNode.result)} header lines (Date aside: Node's own Connection and Keep-Alive: timeout=10 included) and ${selfNode.result.body.length}-byte body; checked before and after the runs`,
      ...all.map((c) => `- runs, ${c.label}: ${c.rates.map((v) => fmt(v)).join(', ')} req/s; CPU ${c.cpu.map((v) => fmt(v, 2)).join(', ')} µs/req`),
      `- server CPU per request: the process's CPU during each run ÷ its requests (the four servers share the process; the idle ones cost nothing measurable); its ratio, anchor ÷ ours, reads like the req/s ratio but depends less on how much of the shared cores wrk and other work get`,
      `- logging: ${LOG_SINK}; rate limits off; server and wrk share the machine's cores`,
    ];
  } finally {
    for (const target of started.reverse()) await target.close();
  }
}

interface StreamFigures {
  front: HttpServerName;
  idle: Memory;
  before: Memory;
  afterDistinct: Memory;
  after: Memory;
  distinctSeconds: number;
  joiningSeconds: number;
}

/**
 * A stream ends when its scan ends, so the held streams watch queued deep
 * scans: with concurrency.deep 1, one blocking scan runs and stays in
 * flight (its PTR lookup waits on silent loopback DNS servers, 5 s each),
 * and every other deep scan waits in the queue, status queued. Each new
 * queued scan sends scan:progress to every waiting one (quadratic), so
 * 10,000 distinct callers would take far longer than this bench may run:
 * `callers` distinct callers open one stream each, then the other streams
 * join those callers' queued scans, and both costs are reported.
 */
async function streamMemory(front: HttpServerName): Promise<StreamFigures> {
  const silentDns = await Promise.all(Array.from({ length: SILENT_DNS_SERVERS }, () => startDnsServer({}, { silent: true })));
  const config = {
    concurrency: { fast: 100_000, deep: 1 },
    sseKeepAliveSeconds: 15,
    dns: { servers: silentDns.map((dns) => dns.address), timeoutMs: 600_000 },
    // Without the facts stage: it waits for the PTR name before a chunk with open ports counts, so the
    // blocking scan's sweep would never show done while DNS stays silent (loopback has listeners).
    exposure: { facts: false, fingerprintDays: 30 },
    limits: limitsOff(),
    http: { server: front },
  };
  serverChild = await spawnServer(config);
  const { pid, port, inspectorUrl } = serverChild;
  const memory = (): Promise<Memory> => memoryAfterGc(pid, inspectorUrl);
  const counts: StreamCounts = { queued: 0, ended: 0 };
  const opened: HeldStreams[] = [];
  const open = async (callers: string[]): Promise<number> => {
    const startedAt = performance.now();
    const expected = counts.queued + callers.length;
    opened.push(await openStreams({ port, path: '/v2/deep', callers, parallel: 256 }, counts));
    await waitUntil(
      () => counts.queued >= expected || counts.ended > 0,
      30_000,
      () => `first events: ${JSON.stringify(counts)}`,
    );
    if (counts.ended > 0) throw new Error(`${counts.ended} streams ended while they should be held open`);
    return (performance.now() - startedAt) / 1000;
  };
  try {
    const health = JSON.parse((await rawRequest(port, 'GET', '/healthz')).body.toString('utf8')) as { http_server?: string };
    if (health.http_server !== front) throw new Error(`asked for the ${front} front, /healthz says ${health.http_server}`);
    const idle = await memory();
    await blockDeepQueue(port, BLOCKER);
    await open(Array.from({ length: WARM_UP_STREAMS }, (_, i) => callerAddress(2, i)));
    const before = await memory();
    const distinct = Array.from({ length: callerCount }, (_, i) => callerAddress(1, i));
    const distinctSeconds = await open(distinct);
    const afterDistinct = await memory();
    const joining = Array.from({ length: streamCount - callerCount }, (_, i) => distinct[i % callerCount]!);
    const joiningSeconds = await open(joining);
    const after = await memory();
    if (counts.ended > 0 || !(await deepQueueStillBlocked(port, BLOCKER))) throw new Error(`streams were not all held: ${JSON.stringify(counts)}`);
    return { front, idle, before, afterDistinct, after, distinctSeconds, joiningSeconds };
  } finally {
    for (const held of opened) held.closeAll();
    await serverChild.kill();
    serverChild = undefined;
    await Promise.all(silentDns.map((dns) => dns.close()));
  }
}

function streamLines(all: readonly StreamFigures[]): string[] {
  const mib = (kib: number): string => fmt(kib / 1024, 1);
  const per = (a: Memory, b: Memory, n: number, field: keyof Memory = 'rssKiB'): string => fmt((b[field] - a[field]) / n, 1);
  const joining = streamCount - callerCount;
  return [
    `${fmt(streamCount)} concurrent v2 streams (GET /v2/deep, all waiting in the deep queue, each past its first \`event: scan:queued\`), \`selfscan serve\` as a child process on each front in turn; KiB per stream is the growth after a full GC ÷ the streams:`,
    '',
    `| front | VmRSS before (MiB) | with all ${fmt(streamCount)} open (MiB) | **RSS per stream (KiB)** | V8 heap per stream (KiB) | ${fmt(callerCount)} distinct callers: RSS (heap) per stream, opened in | ${fmt(joining)} joining: RSS (heap) per stream, opened in | idle server RSS, V8 heap (MiB) |`,
    '|---|---|---|---|---|---|---|---|',
    ...all.map(
      (m) =>
        `| ${FRONT_NAMES[m.front]} | ${mib(m.before.rssKiB)} | ${mib(m.after.rssKiB)} | **${per(m.before, m.after, streamCount)}** | ${per(m.before, m.after, streamCount, 'heapKiB')} | ${per(m.before, m.afterDistinct, callerCount)} (${per(m.before, m.afterDistinct, callerCount, 'heapKiB')}), ${m.distinctSeconds.toFixed(1)} s | ${per(m.afterDistinct, m.after, joining)} (${per(m.afterDistinct, m.after, joining, 'heapKiB')}), ${m.joiningSeconds.toFixed(1)} s | ${mib(m.idle.rssKiB)}, ${mib(m.idle.heapKiB)} |`,
    ),
    '',
    `- the ${fmt(callerCount)} distinct callers each have their own queued scan; the ${fmt(joining)} more join those scans (${fmt(joining / callerCount, 1)} per caller)`,
    `- every reading after a full GC (inspector HeapProfiler.collectGarbage); "before" is after ${WARM_UP_STREAMS} warm-up streams (held throughout) and the blocking deep scan`,
  ];
}

try {
  console.log(`machine: ${machineLine()}`);
  console.log(`load average at the start: ${load()}`);
  const throughputLines = await throughput();
  for (const line of throughputLines) console.log(line);
  const figures: StreamFigures[] = [];
  for (const front of FRONTS) figures.push(await streamMemory(front));
  const streamLinesOut = streamLines(figures);
  for (const line of streamLinesOut) console.log(line);
  console.log(`load average at the end: ${load()}`);
  recordSection(
    'http',
    'HTTP: GET /v1/fast throughput of both fronts against bare uWebSockets.js and bare node:http, memory per v2 stream (npm run bench:http)',
    [
      'Throughput: the real server on each front (setting http.server: uws, node) and the two bare servers, all four on 127.0.0.1 in one process, driven by wrk on the same machine. Streams: `selfscan serve` as a child process on each front in turn, raw sockets from loopback addresses (127.1.x.y), VmRSS from /proc, V8 heap from the inspector.',
      '',
      ...throughputLines,
      '',
      ...streamLinesOut,
    ],
  );
} finally {
  clearTimeout(watchdog);
}
process.exit(0);
