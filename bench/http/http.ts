// npm run bench:http — the HTTP interface under load, two questions:
//
// 1. Throughput of GET /v1/fast answering a stored result: the real server
//    in this process against a bare uWebSockets.js app answering the same
//    bytes, under wrk, alternating, in the same run. wrk cannot choose its
//    source address, so the stored result is 127.0.0.1's own fast scan.
//    Logging is on (level info, as in production) into /dev/null.
// 2. Memory per open v2 stream: `selfscan serve` as a child process, N
//    (default 10,000) streams from loopback callers held open at once
//    (--callers distinct ones, default 1,000; the rest join their scans),
//    the child's VmRSS before and after.
//
// wrk is installed when missing (as root, apt-get). Everything stays on
// loopback. Options: --runs (7), --seconds (5),
// --threads (2), --connections (64), --streams (10000), --callers (1000).
import { parseArgs } from 'node:util';

import { ensureCommand } from '../../scripts/ensure-command.mjs';
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
  startBareServer,
  startSelfscanWithResult,
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
/** Issue 29: selfscan serves a kept result at ≥ 0.8× the requests/s of bare uWS answering the same bytes. */
const THROUGHPUT_GOAL = 0.8;
/** Each holds the blocking scan's PTR lookup 5 s (c-ares' longest timeout): 16 hold it 80 s. */
const SILENT_DNS_SERVERS = 16;
const BLOCKER = '127.4.0.1';

// The whole bench stays under ~4 minutes; past that it kills what it started and fails.
let serverChild: ServerChild | undefined;
const watchdog = setTimeout(() => {
  console.error('bench:http: still running after 240 s; stopping');
  serverChild?.child.kill('SIGKILL');
  process.exit(1);
}, 240_000);

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function throughput(): Promise<string[]> {
  const selfscan = await startSelfscanWithResult();
  const bare = await startBareServer(selfscan.result);
  try {
    if (!sameResponse(await rawRequest(bare.port, 'GET', '/v1/fast'), selfscan.result)) throw new Error('the bare app does not answer the same response');
    const warmUp = { ...wrk, seconds: 1 };
    await wrkRequestsPerSecond(selfscan.port, warmUp);
    await wrkRequestsPerSecond(bare.port, warmUp);
    const ours: number[] = [];
    const bares: number[] = [];
    const ourCpu: number[] = [];
    const bareCpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const our = await measuredRun(selfscan.port, wrk);
      const theirs = await measuredRun(bare.port, wrk);
      ours.push(our.rate);
      ourCpu.push(our.cpuMicrosPerRequest);
      bares.push(theirs.rate);
      bareCpu.push(theirs.cpuMicrosPerRequest);
    }
    if (!sameResponse(await rawRequest(selfscan.port, 'GET', '/v1/fast'), selfscan.result)) throw new Error('selfscan answered differently after the runs');
    const ratio = median(ours) / median(bares);
    return [
      `GET /v1/fast, stored result (127.0.0.1's own fast scan, since wrk cannot choose its source address; ${selfscan.result.body.length}-byte JSON body, same status, headers and bytes from both): selfscan median ${fmt(median(ours))} req/s, bare uWS median ${fmt(median(bares))} req/s, ratio selfscan/bare ${ratio.toFixed(2)} (goal ≥ ${THROUGHPUT_GOAL}: ${ratio >= THROUGHPUT_GOAL ? 'met' : 'NOT met'})`,
      `runs (wrk -t${wrk.threads} -c${wrk.connections} -d${wrk.seconds}s, alternating, after a 1 s warm-up each): selfscan ${ours.map((v) => fmt(v)).join(', ')}; bare ${bares.map((v) => fmt(v)).join(', ')} req/s`,
      `server CPU per request (the process's CPU during each run ÷ its requests): selfscan median ${fmt(median(ourCpu), 2)} µs, bare uWS median ${fmt(median(bareCpu), 2)} µs`,
      `logging: ${LOG_SINK}; rate limits off; server and wrk share the machine's cores`,
    ];
  } finally {
    await bare.close();
    await selfscan.close();
  }
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
async function streamMemory(): Promise<string[]> {
  const silentDns = await Promise.all(Array.from({ length: SILENT_DNS_SERVERS }, () => startDnsServer({}, { silent: true })));
  const config = {
    concurrency: { fast: 100_000, deep: 1 },
    sseKeepAliveSeconds: 15,
    dns: { servers: silentDns.map((dns) => dns.address), timeoutMs: 600_000 },
    // Without the facts stage: it waits for the PTR name before a chunk with open ports counts, so the
    // blocking scan's sweep would never show done while DNS stays silent (loopback has listeners).
    exposure: { facts: false, fingerprintDays: 30 },
    limits: limitsOff(),
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
    return streamLines({ idle, before, afterDistinct, after }, distinctSeconds, joiningSeconds);
  } finally {
    for (const held of opened) held.closeAll();
    await serverChild.kill();
    serverChild = undefined;
    await Promise.all(silentDns.map((dns) => dns.close()));
  }
}

function streamLines(m: Record<'idle' | 'before' | 'afterDistinct' | 'after', Memory>, distinctSeconds: number, joiningSeconds: number): string[] {
  const mib = (kib: number): string => fmt(kib / 1024, 1);
  const per = (a: Memory, b: Memory, n: number, field: keyof Memory = 'rssKiB'): string => fmt((b[field] - a[field]) / n, 1);
  const joining = streamCount - callerCount;
  const both = (a: Memory, b: Memory, n: number): string => `${per(a, b, n)} KiB RSS (V8 heap ${per(a, b, n, 'heapKiB')} KiB)`;
  return [
    `${fmt(streamCount)} concurrent v2 streams (GET /v2/deep, all waiting in the deep queue, each past its first \`event: scan:queued\`): server VmRSS ${mib(m.before.rssKiB)} MiB before, ${mib(m.after.rssKiB)} MiB with all open (+${mib(m.after.rssKiB - m.before.rssKiB)} MiB): ${both(m.before, m.after, streamCount)} per stream`,
    `  ${fmt(callerCount)} from distinct callers, each with its own queued scan: ${both(m.before, m.afterDistinct, callerCount)} per stream, opened in ${distinctSeconds.toFixed(1)} s; ${fmt(joining)} more joining those scans (${fmt(joining / callerCount, 1)} per caller): ${both(m.afterDistinct, m.after, joining)} per stream, opened in ${joiningSeconds.toFixed(1)} s`,
    `  every reading after a full GC (inspector HeapProfiler.collectGarbage); "before" is after ${WARM_UP_STREAMS} warm-up streams (held throughout) and the blocking deep scan; the idle server right after start had ${mib(m.idle.rssKiB)} MiB RSS, ${mib(m.idle.heapKiB)} MiB V8 heap`,
  ];
}

try {
  console.log(`machine: ${machineLine()}`);
  const throughputLines = await throughput();
  for (const line of throughputLines) console.log(line);
  const streamLinesOut = await streamMemory();
  for (const line of streamLinesOut) console.log(line);
  recordSection('http', 'HTTP: GET /v1/fast throughput against bare uWebSockets.js, memory per v2 stream (npm run bench:http)', [
    'Throughput: both servers on 127.0.0.1 in one process, driven by wrk on the same machine. Streams: `selfscan serve` as a child process, raw sockets from loopback addresses (127.1.x.y), VmRSS from /proc, V8 heap from the inspector.',
    '',
    ...[...throughputLines, ...streamLinesOut].map((line) => (line.startsWith('  ') ? `  - ${line.trim()}` : `- ${line}`)),
  ]);
} finally {
  clearTimeout(watchdog);
}
process.exit(0);
