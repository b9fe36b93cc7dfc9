// npm run bench:http — the HTTP interface under load, two questions:
//
// 1. Throughput of GET /v1/fast answering a stored result: the real server
//    in this process against a bare uWebSockets.js app answering the same
//    bytes, under wrk, alternating, in the same run. wrk cannot choose its
//    source address, so the stored result is 127.0.0.1's own fast scan.
//    Logging is on (level info, as in production) into /dev/null.
// 2. Memory per open v2 stream: `selfscan serve` as a child process, N
//    (default 10,000) streams from distinct loopback callers held open at
//    once, the child's VmRSS before and after.
//
// Everything stays on loopback. Options: --runs (3), --seconds (5),
// --threads (2), --connections (64), --streams (10000).
import { parseArgs } from 'node:util';

import { startDnsServer } from '../test/helpers/dns-server.js';
import {
  callerAddress,
  type Memory,
  memoryOf,
  openStreams,
  type ServerChild,
  spawnServer,
  type StreamCounts,
  waitUntil,
} from './http-streams.js';
import {
  LOG_SINK,
  limitsOff,
  rawRequest,
  sameResponse,
  startBareServer,
  startSelfscanWithResult,
  type WrkOptions,
  wrkRequestsPerSecond,
} from './http-throughput.js';
import { machineLine, median } from './machine.js';
import { recordSection } from './results-file.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    threads: { type: 'string', default: '2' },
    connections: { type: 'string', default: '64' },
    streams: { type: 'string', default: '10000' },
  },
});
const runs = Math.max(1, Number(values.runs));
const wrk: WrkOptions = { threads: Number(values.threads), connections: Number(values.connections), seconds: Number(values.seconds) };
const streamCount = Math.max(1, Number(values.streams));
const WARM_UP_STREAMS = 100;

// The whole bench stays under ~3 minutes; past that it kills what it started and fails.
let serverChild: ServerChild | undefined;
const watchdog = setTimeout(() => {
  console.error('bench:http: still running after 170 s; stopping');
  serverChild?.child.kill('SIGKILL');
  process.exit(1);
}, 170_000);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
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
    for (let i = 0; i < runs; i++) {
      ours.push(await wrkRequestsPerSecond(selfscan.port, wrk));
      bares.push(await wrkRequestsPerSecond(bare.port, wrk));
    }
    if (!sameResponse(await rawRequest(selfscan.port, 'GET', '/v1/fast'), selfscan.result)) throw new Error('selfscan answered differently after the runs');
    const ratio = median(ours) / median(bares);
    return [
      `GET /v1/fast, stored result (${selfscan.result.body.length}-byte JSON body, same status, headers and bytes from both): selfscan median ${fmt(median(ours))} req/s, bare uWS median ${fmt(median(bares))} req/s, ratio selfscan/bare ${ratio.toFixed(2)} (goal ≥ 0.7: ${ratio >= 0.7 ? 'met' : 'NOT met'})`,
      `runs (wrk -t${wrk.threads} -c${wrk.connections} -d${wrk.seconds}s, alternating, after a 1 s warm-up each): selfscan ${ours.map((v) => fmt(v)).join(', ')}; bare ${bares.map((v) => fmt(v)).join(', ')} req/s`,
      `logging: ${LOG_SINK}; rate limits off; server and wrk share the machine's cores`,
    ];
  } finally {
    await bare.close();
    await selfscan.close();
  }
}

/**
 * A stream ends when its scan ends, so every stream's scan is held in
 * flight: PTR lookups go to a loopback DNS server that never answers, with
 * a 10-minute timeout, and a scan stays `running` until its PTR lookup
 * ends. Each caller runs its own fast scan (concurrency.fast 100,000, so
 * none queue). Deep scans queued behind concurrency.deep 1 would hold them
 * too, but every new queued scan sends scan:progress to all waiting ones:
 * 10,000 of them take far longer than this bench may run.
 */
async function streamMemory(): Promise<string[]> {
  const dns = await startDnsServer({}, { silent: true });
  const config = { concurrency: { fast: 100_000 }, sseKeepAliveSeconds: 15, dns: { servers: [dns.address], timeoutMs: 600_000 }, limits: limitsOff() };
  serverChild = await spawnServer(config);
  const { pid, port } = serverChild;
  const counts: StreamCounts = { queued: 0, swept: 0, ended: 0 };
  const open = (block: number, n: number): ReturnType<typeof openStreams> => {
    const callers = Array.from({ length: n }, (_, i) => callerAddress(block, i));
    return openStreams({ port, path: '/v2/fast', callers, sweptMarker: '"chunks_complete":4', parallel: 256 }, counts);
  };
  const settled = (n: number, what: string): Promise<void> =>
    waitUntil(() => counts.swept + counts.ended >= n, 60_000, () => `${what}: ${JSON.stringify(counts)}`);
  const started = memoryOf(pid);
  const warm = await open(2, WARM_UP_STREAMS);
  await settled(WARM_UP_STREAMS, 'warm-up streams');
  await sleep(1000);
  const before = memoryOf(pid);
  const openedAt = performance.now();
  const held = await open(1, streamCount);
  const openSeconds = (performance.now() - openedAt) / 1000;
  const atFirstEvent = memoryOf(pid);
  try {
    await settled(WARM_UP_STREAMS + streamCount, 'streams whose scan swept its ports');
    await sleep(2000);
    const after = memoryOf(pid);
    if (counts.ended > 0) throw new Error(`${counts.ended} streams ended while they should be held open`);
    return streamLines(started, before, atFirstEvent, after, openSeconds);
  } finally {
    held.closeAll();
    warm.closeAll();
    await serverChild.kill();
    serverChild = undefined;
    await dns.close();
  }
}

function streamLines(started: Memory, before: Memory, atFirstEvent: Memory, after: Memory, openSeconds: number): string[] {
  const mib = (kib: number): string => fmt(kib / 1024, 1);
  const perStream = (a: Memory, b: Memory, field: keyof Memory): string => fmt((b[field] - a[field]) / streamCount, 1);
  return [
    `${fmt(streamCount)} concurrent v2 streams (GET /v2/fast, one caller each, every scan held in flight): server VmRSS ${mib(before.rssKiB)} MiB before, ${mib(after.rssKiB)} MiB with all open (+${mib(after.rssKiB - before.rssKiB)} MiB), ${perStream(before, after, 'rssKiB')} KiB per stream (RssAnon ${perStream(before, after, 'anonKiB')} KiB, RssFile ${perStream(before, after, 'fileKiB')} KiB per stream)`,
    `  at the moment every stream had its first event: ${perStream(before, atFirstEvent, 'rssKiB')} KiB per stream; all ${fmt(streamCount)} opened (connect to first \`event: scan:queued\`, 256 at a time) in ${openSeconds.toFixed(1)} s; none ended while held`,
    `  "before" is after ${WARM_UP_STREAMS} warm-up streams (held open throughout); the idle server right after start had ${mib(started.rssKiB)} MiB`,
  ];
}

try {
  console.log(`machine: ${machineLine()}`);
  const throughputLines = await throughput();
  for (const line of throughputLines) console.log(line);
  const streamLinesOut = await streamMemory();
  for (const line of streamLinesOut) console.log(line);
  recordSection('http', 'HTTP: GET /v1/fast throughput against bare uWebSockets.js, memory per v2 stream (npm run bench:http)', [
    'Both servers on 127.0.0.1, driven by wrk from the same machine. Streams: `selfscan serve` as a child process, raw sockets from distinct loopback addresses, VmRSS from /proc.',
    '',
    ...[...throughputLines, ...streamLinesOut].map((line) => (line.startsWith('  ') ? `  - ${line.trim()}` : `- ${line}`)),
  ]);
} finally {
  clearTimeout(watchdog);
}
process.exit(0);
