// npm run bench:cluster — the cluster against the single process, on this
// machine, in one run:
//   1. a deep scan of 127.0.0.1 requested over v2 (request to its terminal
//      event), through the cluster (2 API nodes, 3 scanner processes in one
//      region) and through `selfscan serve` alone, alternating, 5 runs each;
//      the ratio of the medians (goal ≤ 1.3);
//   2. 1,000 distinct loopback callers' fast scans through the 2 API nodes,
//      arriving at ARRIVAL_PER_SECOND (goal: all exact, p99 of every API
//      request < 50 ms); then, for comparison, at twice that rate and all at
//      once (a burst). Every process shares this machine's cores;
//   3. Redis's commands, bytes and CPU per fast and per deep scan (INFO,
//      the idle cluster's own traffic taken out), and from its CPU per scan
//      how many scans per second one primary (one core) carries;
//   4. the cost of persistence: phase 2 again with appendonly + everysec,
//      and with appendonly + always;
//   5. a Redis failover: its window as the API sees it, a deep scan across
//      one against one without, and the cost of the durability wait
//      (cluster-failover.ts), in a section of its own.
// Every node runs the tsc build. Traffic stays on loopback.
//
//   --window N   the nodes' chunkWindow (default: the setting's default)
//   --part P     `main` (1–4), `failover` (5) or `all` (default)
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { Redis } from 'ioredis';

import { DEFAULT_CONFIG } from '../../src/config/config.js';
import { killAll, startNode } from '../../support/cluster-nodes.js';
import { startRedisServer } from '../../support/redis-server.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { readSse } from '../../support/sse-reader.js';
import { BUILT_CLI } from '../lib/built.js';
import { ProcessSampler } from '../lib/load-metrics.js';
import { truthOf, wrongness } from '../lib/load-truth.js';
import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';
import { failoverPart } from './cluster-failover.js';
import { type CpuTimes, type FastPhase, runFastPhase } from './cluster-fast-phase.js';
import { difference, minus, type RedisReading, readRedis, scaled, topCommands, totalCommands } from './cluster-redis-stats.js';

const BUILT = [BUILT_CLI];
const DEEP_RUNS = 5;
const FAST_CALLERS = 1000;
const RATIO_GOAL = 1.3;
const P99_GOAL_MS = 50;
/**
 * Callers arriving per second in the goal's phase. The issue names no rate;
 * all at once, p99 is bounded below by the queue (1,000 starts over 2 cores),
 * as for the single process (bench:load), so the goal is read at a steady rate.
 */
const ARRIVAL_PER_SECOND = 50;
const WARM_UP_CALLERS = 100;
const { values } = parseArgs({ options: { window: { type: 'string' }, part: { type: 'string', default: 'all' } } });
if (!['all', 'main', 'failover'].includes(values.part)) throw new Error(`--part: main, failover or all, not ${values.part}`);
const QUIET = { logLevel: 'info', ...(values.window === undefined ? {} : { chunkWindow: Number(values.window) }) };

const fmt = (n: number, digits = 2): string => n.toFixed(digits);
const kib = (bytes: number): string => `${fmt(bytes / 1024, 1)} KiB`;

async function deepRun(url: string): Promise<number> {
  const truth = truthOf({ address: '127.0.0.1', scanType: 'deep' });
  const started = performance.now();
  const events = await readSse(`${url}/v2/deep`);
  const seconds = (performance.now() - started) / 1000;
  const end = events.at(-1)!;
  const why = wrongness({ address: '127.0.0.1', scanType: 'deep' }, end.data, [truth, truthOf({ address: '127.0.0.1', scanType: 'deep' })]);
  if (why !== null) throw new Error(`deep scan through ${url} was wrong: ${why}`);
  return seconds;
}

function redisLines(what: string, perScan: RedisReading): string[] {
  const capacity = perScan.cpuSeconds > 0 ? 1 / perScan.cpuSeconds : Infinity;
  return [
    `  - ${what}: ${fmt(totalCommands(perScan), 0)} commands (${topCommands(perScan)}), ${kib(perScan.bytesIn)} in, ${kib(perScan.bytesOut)} out, ${fmt(perScan.cpuSeconds * 1000, 2)} ms of Redis CPU`,
    `    - on paper, one primary (Redis runs commands on one core) carries about ${fmt(capacity, 0)} ${what}s/s before its CPU is the limit`,
  ];
}

/** The mean CPU of each group over `runs`. */
function meanCpu(runs: readonly CpuTimes[]): CpuTimes {
  return Object.fromEntries(Object.keys(runs[0]!).map((group) => [group, runs.reduce((sum, run) => sum + run[group]!, 0) / runs.length]));
}

/** `total s (group a s, …)` over `groups`. */
function cpuLine(cpu: CpuTimes, groups: readonly string[]): string {
  const total = groups.reduce((sum, group) => sum + cpu[group]!, 0);
  return groups.length === 1 ? `${fmt(total)} s` : `${fmt(total)} s (${groups.map((group) => `${group} ${fmt(cpu[group]!)} s`).join(', ')})`;
}

function fastLines(name: string, phase: FastPhase): string[] {
  const { latency } = phase;
  return [
    `- ${name}: ${phase.callers} callers' fast scans in ${fmt(phase.seconds)} s (${fmt(phase.callers / phase.seconds, 1)} scans/s); exact ${phase.exact}/${phase.callers}; API requests ${latency.count}, p50 ${fmt(latency.p50, 1)} ms, p99 ${fmt(latency.p99, 1)} ms, max ${fmt(latency.max, 1)} ms`,
    `  - CPU over the phase (2 cores, ${fmt(phase.seconds * 2, 1)} s of CPU to share): ${cpuLine(phase.cpu, ['API nodes', 'scanner nodes', 'Redis', 'this harness'])}`,
    ...phase.wrong.slice(0, 5).map((why) => `  - wrong: ${why}`),
  ];
}

async function main(): Promise<void> {
  const redis = await startRedisServer();
  const stats = new Redis({ path: redis.path });
  const nodes: ServerProcess[] = [];
  try {
    const node = async (role: 'api' | 'scanner'): Promise<ServerProcess> => {
      const started = await startNode(redis.path, { role, region: 'NL', config: QUIET }, BUILT);
      nodes.push(started);
      return started;
    };
    const scanners = await Promise.all([node('scanner'), node('scanner'), node('scanner')]);
    const api = [await node('api'), await node('api')];
    const single = await startServerProcess(mkdtempSync(join(tmpdir(), 'selfscan-bench-single-')), QUIET, BUILT);
    nodes.push(single);
    const apiUrls = api.map((a) => a.url);
    const apiPorts = apiUrls.map((url) => Number(new URL(url).port));
    const samplers = (group: ServerProcess[]) => group.map((n) => new ProcessSampler(n.child.pid!, 60_000));
    const [apiCpu, scannerCpu, singleCpu] = [samplers(api), samplers(scanners), samplers([single])];
    const of = (group: ProcessSampler[]) => group.reduce((sum, sampler) => sum + sampler.cpuSeconds(), 0);
    /** CPU seconds so far, by group: the processes' own, Redis's from INFO, this harness's. */
    const cpuNow = async (): Promise<CpuTimes> => {
      const own = process.cpuUsage();
      const redisCpu = (await readRedis(stats)).cpuSeconds;
      return {
        'API nodes': of(apiCpu),
        'scanner nodes': of(scannerCpu),
        Redis: redisCpu,
        'single process': of(singleCpu),
        'this harness': (own.user + own.system) / 1e6,
      };
    };
    /** The CPU `work` costs each group. */
    const cpuOf = async (work: () => Promise<unknown>): Promise<CpuTimes> => {
      const before = await cpuNow();
      await work();
      const after = await cpuNow();
      return Object.fromEntries(Object.entries(after).map(([group, total]) => [group, total - before[group]!]));
    };

    // Warm-up (JIT, connections, the first BullMQ round trips), not measured.
    await deepRun(single.url);
    await deepRun(apiUrls[0]!);
    await runFastPhase(apiPorts, WARM_UP_CALLERS, 5, ARRIVAL_PER_SECOND, cpuNow);

    // The idle cluster's own Redis traffic (heartbeats, blocking fetches, stalled checks, sweeps), per second.
    const idleBefore = await readRedis(stats);
    const idleStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const idlePerSecond = scaled(difference(idleBefore, await readRedis(stats)), 1000 / (performance.now() - idleStarted));

    const clusterSeconds: number[] = [];
    const singleSeconds: number[] = [];
    const deepRedis: RedisReading[] = [];
    const singleCpuRuns: CpuTimes[] = [];
    const clusterCpuRuns: CpuTimes[] = [];
    for (let run = 0; run < DEEP_RUNS; run++) {
      singleCpuRuns.push(await cpuOf(async () => singleSeconds.push(await deepRun(single.url))));
      const before = await readRedis(stats);
      clusterCpuRuns.push(await cpuOf(async () => clusterSeconds.push(await deepRun(apiUrls[run % 2]!))));
      deepRedis.push(minus(difference(before, await readRedis(stats)), scaled(idlePerSecond, clusterSeconds.at(-1)!)));
    }
    const ratio = median(clusterSeconds) / median(singleSeconds);
    const deepPerScan = scaled(
      deepRedis.reduce((sum, r) => ({
        commands: new Map([...r.commands].map(([n, c]) => [n, c + (sum.commands.get(n) ?? 0)])),
        bytesIn: sum.bytesIn + r.bytesIn,
        bytesOut: sum.bytesOut + r.bytesOut,
        cpuSeconds: sum.cpuSeconds + r.cpuSeconds,
      })),
      1 / DEEP_RUNS,
    );

    const fastBefore = await readRedis(stats);
    const fast = await runFastPhase(apiPorts, FAST_CALLERS, 1, ARRIVAL_PER_SECOND, cpuNow);
    const fastAfter = await readRedis(stats);
    const doubled = await runFastPhase(apiPorts, FAST_CALLERS, 6, 2 * ARRIVAL_PER_SECOND, cpuNow);
    const burst = await runFastPhase(apiPorts, FAST_CALLERS, 4, Infinity, cpuNow);
    const fastPerScan = scaled(minus(difference(fastBefore, fastAfter), scaled(idlePerSecond, fast.seconds)), 1 / FAST_CALLERS);

    await stats.config('SET', 'appendonly', 'yes');
    await stats.config('SET', 'appendfsync', 'everysec');
    await new Promise((resolve) => setTimeout(resolve, 2000)); // the AOF rewrite that turning it on starts
    const everysecBefore = await readRedis(stats);
    const everysec = await runFastPhase(apiPorts, FAST_CALLERS, 2, ARRIVAL_PER_SECOND, cpuNow);
    const everysecCpu = difference(everysecBefore, await readRedis(stats)).cpuSeconds / FAST_CALLERS;
    await stats.config('SET', 'appendfsync', 'always');
    const alwaysBefore = await readRedis(stats);
    const always = await runFastPhase(apiPorts, FAST_CALLERS, 3, ARRIVAL_PER_SECOND, cpuNow);
    const alwaysCpu = difference(alwaysBefore, await readRedis(stats)).cpuSeconds / FAST_CALLERS;

    const lines = [
      `Cluster: one redis-server 7.0 (the test fixture: unix socket, no persistence unless said), 2 API nodes, 3 scanner nodes in one region (chunkWindow ${values.window ?? DEFAULT_CONFIG.chunkWindow}), each a process of the tsc build with rate limits off and info logs; the single process is \`selfscan serve\` with the same settings. All on this machine.`,
      '',
      `- deep scan of 127.0.0.1 (all 65,535 ports, v2 request to terminal event, ${DEEP_RUNS} runs each, alternating, after one warm-up each, and 100 fast scans before the fast phases):`,
      `  - cluster: median ${fmt(median(clusterSeconds))} s (runs ${clusterSeconds.map((s) => fmt(s)).join(', ')} s)`,
      `  - single process: median ${fmt(median(singleSeconds))} s (runs ${singleSeconds.map((s) => fmt(s)).join(', ')} s)`,
      `  - ratio cluster/single ${fmt(ratio)} (goal ≤ ${RATIO_GOAL}): ${ratio <= RATIO_GOAL ? 'met' : 'not met'}; every result exact`,
      `  - CPU per deep scan, mean of the runs: cluster ${cpuLine(meanCpu(clusterCpuRuns), ['API nodes', 'scanner nodes', 'Redis'])}; single process ${cpuLine(meanCpu(singleCpuRuns), ['single process'])}`,
      ...fastLines(`fast scans through 2 API nodes arriving at ${ARRIVAL_PER_SECOND}/s, no persistence`, fast),
      `  - p99 ${fmt(fast.latency.p99, 1)} ms (goal < ${P99_GOAL_MS} ms) and all exact: ${fast.latency.p99 < P99_GOAL_MS && fast.wrong.length === 0 ? 'met' : 'not met'}`,
      ...fastLines(`the same at ${2 * ARRIVAL_PER_SECOND}/s (not the goal)`, doubled),
      ...fastLines('the same, all 1,000 at once (a burst; not the goal)', burst),
      '- Redis per scan (the paced phase; idle cluster traffic of the same duration taken out):',
      ...redisLines('fast scan', fastPerScan),
      ...redisLines('deep scan', deepPerScan),
      `  - idle cluster: ${fmt(totalCommands(idlePerSecond), 0)} commands/s (${topCommands(idlePerSecond, 5)})`,
      `- persistence (the goal's phase again, ${ARRIVAL_PER_SECOND}/s, 1,000 other callers each):`,
      ...fastLines('appendonly yes, appendfsync everysec', everysec).map((line) => `  ${line}`),
      `    - Redis CPU ${fmt(everysecCpu * 1000, 2)} ms per fast scan (no persistence: ${fmt((fastPerScan.cpuSeconds + idlePerSecond.cpuSeconds * (fast.seconds / FAST_CALLERS)) * 1000, 2)} ms before taking idle out)`,
      ...fastLines('appendonly yes, appendfsync always', always).map((line) => `  ${line}`),
      `    - Redis CPU ${fmt(alwaysCpu * 1000, 2)} ms per fast scan`,
    ];
    recordSection('cluster', 'Cluster: deep scan against the single process, 1,000 fast callers, Redis per scan, persistence (npm run bench:cluster)', lines);
    process.stdout.write(`${lines.join('\n')}\n`);
    if (fast.wrong.length + doubled.wrong.length + burst.wrong.length + everysec.wrong.length + always.wrong.length > 0) process.exitCode = 1;
  } finally {
    stats.disconnect();
    await killAll(nodes);
    await redis.close();
  }
}

async function failover(): Promise<void> {
  const { lines, exact } = await failoverPart(BUILT, QUIET);
  recordSection('cluster-failover', 'Cluster: a Redis failover, and what securing a scan start costs (npm run bench:cluster)', lines);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (!exact) process.exitCode = 1;
}

if (values.part !== 'failover') await main();
if (values.part !== 'main') await failover();
