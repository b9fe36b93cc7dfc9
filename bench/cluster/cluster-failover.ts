// The failover part of bench/cluster/cluster.ts (issue 43): a primary, a
// replica and three Sentinels (down-after-milliseconds 2000) of the
// tests' own (support/redis-sentinels.ts), nodes of the tsc build given
// the redis+sentinel:// URL, everything on this machine.
//   1. FAILOVER_RUNS times, on a fresh Redis and fresh nodes: a deep scan of
//      a loopback address without a failover, then one during which the primary is
//      killed (kill -9) once KILL_AFTER_CHUNKS chunks are recorded; the
//      window as the API sees it (kill -9 to the first 200 of a GET that
//      needs Redis, asked every 100 ms) and each deep scan's time
//      (request to terminal event), every result checked exact;
//   2. the cost of securing a scan start (redisWait: `replay`, the default,
//      and `wait`, each against none): fast phases through two API nodes of
//      each mode, on the same Redis and scanner nodes, in turn,
//      under each of SHAPES (bench:load's fast phase, and a light load):
//      the phase's time, every request's and the scan start's latency, and
//      CPU per scan of the API nodes and the primary; then the goal's burst
//      with a quarter of its callers through each mode's nodes at once (and
//      a control group of nodes that secure nothing), so each meets the
//      same moment's load: one phase after another, the figures move by
//      more than the goal from round to round whatever the mode. The goal
//      is judged side by side. Last, WAIT's own round trip.
import { performance } from 'node:perf_hooks';

import { Redis } from 'ioredis';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { type SentinelRedis, startSentinelRedis } from '../../support/redis-sentinels.js';
import type { CliEntry, ServerProcess } from '../../support/server-process.js';
import { readSse } from '../../support/sse-reader.js';
import { ProcessSampler, summarise } from '../lib/load-metrics.js';
import { truthOf, wrongness } from '../lib/load-truth.js';
import { median } from '../lib/machine.js';
import { type FastPhase, runFastPhase } from './cluster-fast-phase.js';
import { readRedis } from './cluster-redis-stats.js';

/** Redis and Sentinel ports of this part: the primary, the replica, then the three Sentinels. */
const BASE_PORT = 27500;
const FAILOVER_RUNS = 3;
const KILL_AFTER_CHUNKS = 8;
const WINDOW_GOAL_S = 10;
/**
 * The load shapes the wait is measured under: bench:load's fast phase (the
 * issue's goal: 1,000 callers within one second), and a light one, where a
 * scan start's own few milliseconds show the wait's round trip most.
 */
const SHAPES = [
  { name: "bench:load's fast phase", callers: 1000, perSecond: 1000, rounds: 6, goal: true },
  { name: 'light load', callers: 300, perSecond: 50, rounds: 4, goal: false },
] as const;
type Shape = (typeof SHAPES)[number];
const COST_GOAL = 0.05;
const WAIT_SAMPLES = 2000;
/** Small windows, so a deep scan of loopback lasts long enough to be cut by the kill; the same for the scans without one. */
const SCANNER = { concurrency: { deep: 2 } };
/** The deep scans' target: an address of its own (127.0.0.1 holds Redis's ports, which the kill closes), named by a forwarding header. */
const TARGET = '127.0.0.75';
const OPEN_PORTS = [20151, 40252, 65031];
const AS_TARGET = { 'X-Forwarded-For': TARGET };
const API = { chunkWindow: 4, trustProxy: ['127.0.0.1/32'] };

const fmt = (n: number, digits = 2): string => n.toFixed(digits);
const range = (values: readonly number[], digits = 2, unit = ''): string =>
  `${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)}${unit} (median ${fmt(median(values), digits)}${unit})`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A deep scan of TARGET over v2 through `api[0]`, in seconds; with `redis`, its primary is killed mid-scan and the window is measured through `api[1]`. */
async function deepScan(api: readonly string[], redis?: SentinelRedis): Promise<{ seconds: number; windowSeconds?: number }> {
  const target = { address: TARGET, scanType: 'deep' } as const;
  const truth = truthOf(target);
  const started = performance.now();
  let answered = (): void => {};
  const opened = new Promise<void>((resolve) => {
    answered = resolve;
  });
  const stream = readSse(`${api[0]}/v2/deep`, {
    headers: AS_TARGET,
    until: () => {
      answered();
      return false;
    },
  });
  let windowSeconds: number | undefined;
  if (redis !== undefined) {
    // The kill comes after the start was answered: a start cut short by it is refused (503), not the subject here.
    await Promise.race([opened, stream]);
    for (;;) {
      const body = (await (await fetch(`${api[1]}/v1/deep`, { headers: AS_TARGET })).json()) as { status: string; chunks_complete?: number };
      if ((body.chunks_complete ?? 0) >= KILL_AFTER_CHUNKS || !['queued', 'running'].includes(body.status)) break;
      await sleep(20);
    }
    const primaryPort = Number((await redis.primary()).split(':')[1]);
    const killedAt = performance.now();
    await redis.kill(primaryPort);
    windowSeconds = ((await firstGoodAnswer(`${api[1]}/v1/fast`)) - killedAt) / 1000;
  }
  const events = await stream;
  const seconds = (performance.now() - started) / 1000;
  const why = wrongness(target, events.at(-1)!.data, [truth, truthOf(target)]);
  if (why !== null) throw new Error(`deep scan${redis === undefined ? '' : ' across the failover'} was wrong: ${why}`);
  return { seconds, windowSeconds };
}

/** performance.now() of the first 200 to GET `url`, asked every 100 ms, each request on its own so none waits behind another. */
async function firstGoodAnswer(url: string): Promise<number> {
  let good: number | undefined;
  const deadline = performance.now() + 60_000;
  while (good === undefined && performance.now() < deadline) {
    void fetch(url, { headers: AS_TARGET, signal: AbortSignal.timeout(5000) })
      .then(async (response) => {
        await response.arrayBuffer();
        if (response.status === 200) good ??= performance.now();
      })
      .catch(() => {});
    await sleep(100);
  }
  if (good === undefined) throw new Error(`no good answer from ${url} within 60 s of the kill`);
  return good;
}

/** Starts a node of `role` in region NL on `redisUrl` (`quiet` and `config` its settings), kept in `nodes` to be killed. */
function nodeStarter(redisUrl: string, entry: CliEntry, quiet: object, nodes: ServerProcess[]) {
  return async (role: 'api' | 'scanner', config: object): Promise<ServerProcess> => {
    const started = await startNode(redisUrl, { role, region: 'NL', config: { ...quiet, ...config } }, entry);
    nodes.push(started);
    return started;
  };
}

async function failoverRun(entry: CliEntry, quiet: object): Promise<{ without: number; across: number; window: number }> {
  const redis = await startSentinelRedis({ basePort: BASE_PORT });
  const listeners = await listenOn(TARGET, OPEN_PORTS);
  const nodes: ServerProcess[] = [];
  try {
    const node = nodeStarter(redis.url, entry, quiet, nodes);
    await Promise.all([node('scanner', SCANNER), node('scanner', SCANNER)]);
    const api = [(await node('api', API)).url, (await node('api', API)).url];
    await deepScan(api); // warm-up
    const without = (await deepScan(api)).seconds;
    const across = await deepScan(api, redis);
    return { without, across: across.seconds, window: across.windowSeconds! };
  } finally {
    await killAll(nodes);
    await listeners.close();
    await redis.close();
  }
}

/** The ways of securing a start (redisWait), each on API nodes of its own, against none. */
const MODES = ['replay', 'wait', 'none'] as const;
type Mode = (typeof MODES)[number];
/** Side by side, a second group of nodes that secure nothing: its cost against `none` is the measure's own noise. */
const GROUPS = [...MODES, 'control'] as const;
type Group = (typeof GROUPS)[number];
const MODE_CONFIG: Readonly<Record<Group, object>> = {
  replay: {},
  wait: { redisWait: { mode: 'wait' } },
  none: { redisWait: { replicas: 0 } },
  control: { redisWait: { replicas: 0 } },
};
const MODE_NAME: Readonly<Record<Mode, string>> = {
  replay: '`replay` (the default: answered at once, held until the replica has it)',
  wait: '`wait` (answered once the replica has it)',
  none: '`redisWait.replicas 0`',
};

type DurabilityRound = Record<Mode, FastPhase>;
/** One phase of the goal's shape with a quarter of its callers through each group's nodes: each group's callers' latencies, and its API nodes' CPU per scan. */
type SideBySideRound = Record<Group, FastPhase['byGroup'][string] & { cpuPerScan: number }>;
const SIDE_BY_SIDE_ROUNDS = 10;

/** Two API nodes of each mode over one Redis and two scanner nodes: fast phases of each shape through each mode in turn. */
async function durabilityRounds(entry: CliEntry, quiet: object): Promise<{ byShape: DurabilityRound[][]; sideBySide: SideBySideRound[]; waitMs: number[] }> {
  const redis = await startSentinelRedis({ basePort: BASE_PORT });
  const primary = new Redis({ host: '127.0.0.1', port: BASE_PORT });
  const nodes: ServerProcess[] = [];
  try {
    const node = nodeStarter(redis.url, entry, quiet, nodes);
    await Promise.all([node('scanner', {}), node('scanner', {})]);
    const groups = {} as Record<Group, ServerProcess[]>;
    for (const group of GROUPS) groups[group] = [await node('api', MODE_CONFIG[group]), await node('api', MODE_CONFIG[group])];
    const portsOf = (group: ServerProcess[]) => group.map((n) => Number(new URL(n.url).port));
    const samplers = new Map(Object.values(groups).flatMap((group) => group.map((n) => [n, new ProcessSampler(n.child.pid!, 60_000)] as const)));
    const cpuNow = async () => ({
      ...Object.fromEntries(GROUPS.map((group) => [group, groups[group].reduce((sum, n) => sum + samplers.get(n)!.cpuSeconds(), 0)])),
      Redis: (await readRedis(primary)).cpuSeconds,
    });
    let block = 30;
    // Warm-up, unmeasured: each mode's nodes through the goal's burst once (its code compiled as a server's that has served a while).
    const burst = SHAPES.find((shape) => shape.goal)!;
    for (const mode of MODES) await runFastPhase(portsOf(groups[mode]), burst.callers, block++, burst.perSecond, cpuNow);
    const byShape: DurabilityRound[][] = [];
    for (const shape of SHAPES) {
      const rounds: DurabilityRound[] = [];
      for (let round = 0; round < shape.rounds; round++) {
        // Each round in another order, so no mode always runs on a warmer (or busier) machine.
        const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
        const phases = {} as DurabilityRound;
        for (const mode of order) phases[mode] = await runFastPhase(portsOf(groups[mode]), shape.callers, block++, shape.perSecond, cpuNow);
        rounds.push(phases);
      }
      byShape.push(rounds);
    }
    // The same burst with every group in it at once: caller i through group (i + round) mod 4, so each meets the same moment's load.
    const sideBySide: SideBySideRound[] = [];
    for (let round = 0; round < SIDE_BY_SIDE_ROUNDS; round++) {
      const groupOf = (i: number): Group => GROUPS[(i + round) % GROUPS.length]!;
      const phase = await runFastPhase((i) => portsOf(groups[groupOf(i)]), burst.callers, block++, burst.perSecond, cpuNow, groupOf);
      const perGroup = burst.callers / GROUPS.length;
      sideBySide.push(
        Object.fromEntries(GROUPS.map((group) => [group, { ...phase.byGroup[group]!, cpuPerScan: phase.cpu[group]! / perGroup }])) as SideBySideRound,
      );
      if (phase.wrong.length > 0) throw new Error(`side by side: wrong results: ${phase.wrong.slice(0, 5).join('; ')}`);
    }
    // WAIT's own round trip: a write and WAIT 1, against the write alone.
    const waitMs: number[] = [];
    for (let i = 0; i < WAIT_SAMPLES; i++) {
      await primary.set('selfscan:bench:wait', i);
      const started = performance.now();
      await primary.call('WAIT', 1, 500);
      waitMs.push(performance.now() - started);
    }
    await primary.del('selfscan:bench:wait');
    return { byShape, sideBySide, waitMs };
  } finally {
    primary.disconnect();
    await killAll(nodes);
    await redis.close();
  }
}

/** Costs as `what N.N %`, joined. */
const costWords = (costs: Record<string, number>): string =>
  Object.entries(costs)
    .map(([what, cost]) => `${what} ${fmt(cost * 100, 1)} %`)
    .join(', ');

/** CPU seconds per scan of `mode`'s API nodes and of Redis in `phase`. */
function cpuPerScan(phase: FastPhase, mode: Mode): number {
  return (phase.cpu[mode]! + phase.cpu.Redis!) / phase.callers;
}

/** What `mode` cost over `none` in a shape's rounds: the median of the rounds' ratios, less one, and the scan start's added p50 in ms. */
function costsOf(rounds: readonly DurabilityRound[], mode: Exclude<Mode, 'none'>) {
  const ratio = (of: (phase: FastPhase) => number): number => median(rounds.map((r) => of(r[mode]) / of(r.none))) - 1;
  return {
    costs: {
      'phase time': ratio((p) => p.seconds),
      'request p50': ratio((p) => p.latency.p50),
      'request p99': ratio((p) => p.latency.p99),
      'scan start p50': ratio((p) => p.startLatency.p50),
      'CPU per scan': median(rounds.map((r) => cpuPerScan(r[mode], mode) / cpuPerScan(r.none, 'none'))) - 1,
    },
    startAddedMs: median(rounds.map((r) => r[mode].startLatency.p50 - r.none.startLatency.p50)),
  };
}

/** One shape's rounds, one mode after another, as lines; its wrong results. */
function durabilityLines(shape: Shape, rounds: readonly DurabilityRound[]): { lines: string[]; wrong: string[] } {
  const phaseText = (phase: FastPhase, mode: Mode) =>
    `${mode} phase ${fmt(phase.seconds)} s, every request p50 ${fmt(phase.latency.p50)} / p99 ${fmt(phase.latency.p99)} ms, scan start p50 ${fmt(phase.startLatency.p50)} ms, API nodes + Redis CPU per scan ${fmt(cpuPerScan(phase, mode) * 1000)} ms`;
  const costLine = (mode: Exclude<Mode, 'none'>) => {
    const { costs, startAddedMs } = costsOf(rounds, mode);
    return `    - cost of ${mode}, the median of the rounds' ratios ${mode}/none: ${costWords(costs)}; scan start p50 ${startAddedMs >= 0 ? '+' : ''}${fmt(startAddedMs, 2)} ms`;
  };
  const lines = [
    `  - ${shape.name}: ${shape.rounds} rounds of ${shape.callers} fast callers arriving at ${shape.perSecond}/s, through each mode in turn`,
    ...rounds.map((r, i) => `    - round ${i + 1}: ${MODES.map((mode) => phaseText(r[mode], mode)).join('; ')}`),
    costLine('replay'),
    costLine('wait'),
  ];
  return { lines, wrong: rounds.flatMap((r) => MODES.flatMap((mode) => r[mode].wrong)) };
}

/** The side-by-side rounds as lines; whether the default's costs are within COST_GOAL of none's. */
function sideBySideLines(rounds: readonly SideBySideRound[]): { lines: string[]; met: boolean } {
  type Of = (group: SideBySideRound[Group]) => number;
  const measures: Record<string, Of> = {
    'request p50': (g) => g.latency.p50,
    'request p99': (g) => g.latency.p99,
    'scan start p50': (g) => g.startLatency.p50,
    'time to its last result': (g) => g.seconds,
    'API nodes CPU per scan': (g) => g.cpuPerScan,
  };
  const cost = (group: Exclude<Group, 'none'>): Record<string, number> =>
    Object.fromEntries(Object.entries(measures).map(([what, of]) => [what, median(rounds.map((r) => of(r[group]) / of(r.none))) - 1]));
  const costLine = (group: Exclude<Group, 'none'>, label: string) =>
    `    - ${label}, the median of the rounds' ratios ${group}/none: ${costWords(cost(group))}`;
  const replay = cost('replay');
  const judged = ['request p50', 'request p99', 'time to its last result', 'API nodes CPU per scan'];
  const lines = [
    `  - side by side, bench:load's fast phase: ${rounds.length} rounds of 1000 fast callers arriving at 1000/s, a quarter of them through each group's 2 API nodes (caller i through group (i + round) mod 4: replay, wait, none, and a control group that secures nothing either), so every group meets the same moment's load; CPU per scan is its API nodes' (Redis serves all four at once):`,
    ...rounds.map(
      (r, i) =>
        `    - round ${i + 1}: ${GROUPS.map((group) => `${group} every request p50 ${fmt(r[group].latency.p50)} / p99 ${fmt(r[group].latency.p99)} ms, scan start p50 ${fmt(r[group].startLatency.p50)} ms, last result at ${fmt(r[group].seconds)} s, ${fmt(r[group].cpuPerScan * 1000)} ms CPU per scan`).join('; ')}`,
    ),
    costLine('replay', 'cost of replay'),
    costLine('wait', 'cost of wait'),
    costLine('control', "the measure's own noise (two groups that secure nothing)"),
  ];
  return { lines, met: judged.every((what) => replay[what]! <= COST_GOAL) };
}

/** Runs both measures; the lines for RESULTS.md, and whether every result was exact. */
export async function failoverPart(entry: CliEntry, quiet: object): Promise<{ lines: string[]; exact: boolean }> {
  const runs = [];
  for (let run = 0; run < FAILOVER_RUNS; run++) runs.push(await failoverRun(entry, quiet));
  const { byShape, sideBySide, waitMs } = await durabilityRounds(entry, quiet);
  const windows = runs.map((r) => r.window);
  const wait = summarise(waitMs);
  const shapes = SHAPES.map((shape, i) => durabilityLines(shape, byShape[i]!));
  const together = sideBySideLines(sideBySide);
  const lines = [
    `Failover (issue 43): a primary, a replica and three Sentinels (quorum 2, \`down-after-milliseconds 2000\`), no persistence; 2 API nodes (chunkWindow ${API.chunkWindow}) and 2 scanner nodes (concurrency.deep ${SCANNER.concurrency.deep}) of the tsc build, given the redis+sentinel:// URL; all on this machine, shared with other work. ${FAILOVER_RUNS} runs, each on a fresh Redis and fresh nodes.`,
    '',
    `- failover window as the API sees it (kill -9 of the primary to the first 200 of GET /v1/fast, asked every 100 ms): ${range(windows, 2, ' s')}; goal ≤ ${WINDOW_GOAL_S} s: ${Math.max(...windows) <= WINDOW_GOAL_S ? 'met' : 'not met'}`,
    `- deep scan of ${TARGET} (listeners on ${OPEN_PORTS.length} ports; v2, request to terminal event; primary killed once ${KILL_AFTER_CHUNKS} chunks were recorded), every result exact:`,
    `  - without a failover: ${range(
      runs.map((r) => r.without),
      2,
      ' s',
    )}`,
    `  - across a failover: ${range(
      runs.map((r) => r.across),
      2,
      ' s',
    )}; minus the window: ${range(
      runs.map((r) => r.across - r.window),
      2,
      ' s',
    )}`,
    `- securing a scan start (redisWait.replicas 1), each way against none: ${MODES.map((mode) => MODE_NAME[mode]).join(', ')}; fast phases through 2 API nodes of each mode, in turn, on one Redis with its replica:`,
    ...shapes.flatMap((shape) => shape.lines),
    ...together.lines,
    `  - WAIT 1 after a write, on its own (${WAIT_SAMPLES} samples, loopback replica): p50 ${fmt(wait.p50, 3)} ms, p99 ${fmt(wait.p99, 3)} ms`,
    `  - goal (the default's cost ≤ ${COST_GOAL * 100} % on bench:load's fast phase, side by side: every request's p50 and p99, the time to the last result, CPU per scan): ${together.met ? 'met' : 'not met'}`,
    ...shapes.flatMap((shape) => shape.wrong.slice(0, 5).map((why) => `  - wrong: ${why}`)),
  ];
  return { lines, exact: shapes.every((shape) => shape.wrong.length === 0) };
}
