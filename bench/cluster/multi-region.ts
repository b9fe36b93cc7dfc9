// npm run bench:regions — what asking more regions costs: a deep scan of
// one target from three regions (`?regions=all`) against the same scan from
// one (`?regions=NL`), in one run, alternating, RUNS of each after one
// warm-up of each; the ratio of the medians (goal ≤ 1.3), each scan's
// result checked against the firewall's truth from every region. Two
// fixtures: the goal's, where each region's veth is a path of its own (a
// tbf bottleneck each way, as regions on machines of their own are bound by
// their paths), and bare veths, where every region's scanner shares this
// machine's cores; there two figures tell the service's own cost from the
// machine's: the three-region scan against a control doing the same work as
// three one-region scans at once, and against the least time its CPU
// allows on these cores.
//
// The fixture is the multi-region test's (support/region-namespaces.ts):
// three regions (NL, FR, UK), each a network namespace with one scanner
// node (a process of the tsc build) scanning from its own source address;
// one API node in the root namespace; a target host whose firewall drops
// a few hundred ports for everyone, 8080 from FR, and resets 25 and 40022
// from UK. Every process shares this machine's cores. A run is the v2
// request to its terminal event, as the test's caller (X-Forwarded-For
// from the trusted loopback proxy).
//
//   --runs N   runs of each (default 5)
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { Redis } from 'ioredis';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import type { Bottleneck } from '../../support/netns-path.js';
import { startRedisServer } from '../../support/redis-server.js';
import { createRegionNamespaces, type RegionNamespaces } from '../../support/region-namespaces.js';
import type { ServerProcess } from '../../support/server-process.js';
import { readSse } from '../../support/sse-reader.js';
import { BUILT_CLI } from '../lib/built.js';
import { ProcessSampler } from '../lib/load-metrics.js';
import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';
import { readRedis } from './cluster-redis-stats.js';

const BUILT = [BUILT_CLI];
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const RUNS = Number(values.runs);
const RATIO_GOAL = 1.3;
const REGIONS = ['NL', 'FR', 'UK'];
/** The ports every region finds filtered. */
const FILTERED = { from: 20000, to: 20299 };
const QUIET = { logLevel: 'info' };
/** Each region's own path in the goal's fixture. */
const PATH: Bottleneck = { rateMbit: 5, latencyMs: 50 };

type Json = Record<string, unknown>;
interface Vantage {
  region: string;
  status: string;
  duration_ms: number;
  ports_open: { port: number }[];
  ports_filtered: { port: number }[];
}

interface Run {
  seconds: number;
  /** Each region's own duration_ms. */
  regionMs: Record<string, number>;
  /** CPU seconds over the run: the scanner nodes' (with the kernel work of their veths), the API node's, Redis's. */
  cpu: { scanners: number; api: number; redis: number };
  wrong: string[];
}

const fmt = (n: number, digits = 2): string => n.toFixed(digits);
const portsOf = (list: readonly { port: number }[]): number[] => list.map((p) => p.port);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Where a finished result differs from what the firewall lets each of `regions` see; empty when exact. */
function wrongness(fixture: RegionNamespaces, result: Json, regions: readonly string[]): string[] {
  const expected = fixture.expected(regions, 'deep');
  const wrong: string[] = [];
  if (result.status !== 'complete') wrong.push(`status ${String(result.status)}`);
  const vantages = (result.vantages ?? []) as Vantage[];
  if (
    !same(
      vantages.map((v) => v.region),
      regions,
    )
  )
    wrong.push(`regions ${vantages.map((v) => v.region).join(',')}`);
  for (const truth of expected.vantages) {
    const vantage = vantages.find((v) => v.region === truth.region);
    if (vantage === undefined) continue;
    if (vantage.status !== 'complete') wrong.push(`${truth.region}: status ${vantage.status}`);
    if (!same(portsOf(vantage.ports_open), truth.open)) wrong.push(`${truth.region}: open ${portsOf(vantage.ports_open).join(',')}`);
    if (!same(portsOf(vantage.ports_filtered), truth.filtered))
      wrong.push(`${truth.region}: ${vantage.ports_filtered.length} filtered, ${truth.filtered.length} expected`);
  }
  if (!same(portsOf(result.ports_open as Vantage['ports_open']), expected.open)) wrong.push('union: open');
  if (!same(portsOf(result.ports_filtered as Vantage['ports_filtered']), expected.filtered)) wrong.push('union: filtered');
  if (!same(result.differences, expected.differences)) wrong.push(`differences ${JSON.stringify(result.differences)}`);
  return wrong;
}

/** One fixture's figures: its table rows and the lines that detail them. */
interface Measured {
  rows: string[];
  details: string[];
  ratio: number;
  exact: boolean;
}

/** The runs on one fixture: each region's veth bare, or behind `bottleneck`. */
async function measure(label: string, bottleneck: Bottleneck | undefined): Promise<Measured> {
  const redis = await startRedisServer();
  const fixture = await createRegionNamespaces({
    regions: REGIONS,
    bottleneck,
    target: { filtered: FILTERED },
    rules: [
      { region: 'FR', ports: { from: 8080, to: 8080 }, answer: 'drop' },
      { region: 'UK', ports: { from: 25, to: 25 }, answer: 'reset' },
      { region: 'UK', ports: { from: 40022, to: 40022 }, answer: 'reset' },
    ],
  });
  const nodes: ServerProcess[] = [];
  const stats = new Redis({ path: redis.path });
  try {
    const scanners = await Promise.all(
      fixture.regions.map(({ region, place }) => startNode(redis.path, { role: 'scanner', region, place, config: QUIET }, BUILT)),
    );
    nodes.push(...scanners);
    const api = await startNode(redis.path, { role: 'api', config: { ...QUIET, trustProxy: ['127.0.0.1/32'] } }, BUILT);
    nodes.push(api);
    const samplers = scanners.map((scanner) => new ProcessSampler(scanner.child.pid!, 60_000));
    const apiSampler = new ProcessSampler(api.child.pid!, 60_000);
    const cpuNow = async (): Promise<Run['cpu']> => ({
      scanners: samplers.reduce((sum, sampler) => sum + sampler.cpuSeconds(), 0),
      api: apiSampler.cpuSeconds(),
      redis: (await readRedis(stats)).cpuSeconds,
    });
    const headers = { 'X-Forwarded-For': fixture.target.ipv4 };

    /** Deep scans of the target with each of `asked` as its regions, all at once; the run ends with the last. */
    const deepRun = async (...asked: string[]): Promise<Run> => {
      const cpuBefore = await cpuNow();
      const started = performance.now();
      const ends = await Promise.all(asked.map(async (regions) => (await readSse(`${api.url}/v2/deep?regions=${regions}`, { headers })).at(-1)!.data));
      const seconds = (performance.now() - started) / 1000;
      const after = await cpuNow();
      const vantages = ends.flatMap((end) => (end.vantages ?? []) as Vantage[]);
      return {
        seconds,
        regionMs: Object.fromEntries(vantages.map((v) => [v.region, v.duration_ms])),
        cpu: { scanners: after.scanners - cpuBefore.scanners, api: after.api - cpuBefore.api, redis: after.redis - cpuBefore.redis },
        wrong: ends.flatMap((end, i) => wrongness(fixture, end, asked[i] === 'all' ? [...REGIONS].sort() : [asked[i]!])),
      };
    };
    const ONE = ['NL'];
    const THREE = ['all'];
    /** The control: the same three regions' work as three scans of one region each, at once. */
    const APART = ['NL', 'FR', 'UK'];

    // Warm-up (JIT, connections, the first BullMQ round trips, the target's first answers), not measured.
    for (const asked of [ONE, THREE, APART]) await deepRun(...asked);
    const one: Run[] = [];
    const three: Run[] = [];
    const apart: Run[] = [];
    for (let run = 0; run < RUNS; run++) {
      one.push(await deepRun(...ONE));
      three.push(await deepRun(...THREE));
      apart.push(await deepRun(...APART));
      const [a, b, c] = [one, three, apart].map((runs) => fmt(runs.at(-1)!.seconds));
      process.stdout.write(`${label}, run ${run + 1}: regions=NL ${a} s, regions=all ${b} s, regions=NL, FR and UK at once ${c} s\n`);
    }
    for (const sampler of [...samplers, apiSampler]) sampler.stop();

    const medianOf = (runs: Run[]): number => median(runs.map((r) => r.seconds));
    const ratio = medianOf(three) / medianOf(one);
    const apartRatio = medianOf(three) / medianOf(apart);
    const cores = cpus().length;
    const cpuTotal = (run: Run): number => run.cpu.scanners + run.cpu.api + run.cpu.redis;
    /** The least time this machine's cores allow the three-region scan: its CPU spread over every core, or one region's time. */
    const floor = Math.max(median(three.map(cpuTotal)) / cores, medianOf(one));
    const wrong = [...one, ...three, ...apart].flatMap((r) => r.wrong);
    const exact = (runs: Run[]): string => `${runs.filter((r) => r.wrong.length === 0).length}/${runs.length}`;
    const runsLine = (runs: Run[]): string => runs.map((r) => fmt(r.seconds)).join(', ');
    const regionLine = (runs: Run[]): string =>
      Object.keys(runs[0]!.regionMs)
        .map((region) => `${region} ${fmt(median(runs.map((r) => r.regionMs[region]!)) / 1000)} s`)
        .join(', ');
    const cpuLine = (runs: Run[]): string => {
      const of = (group: keyof Run['cpu']): string => fmt(median(runs.map((r) => r.cpu[group])));
      return `scanner nodes ${of('scanners')} s, API node ${of('api')} s, Redis ${of('redis')} s`;
    };
    return {
      ratio,
      exact: wrong.length === 0,
      rows: [
        `| ${label}: deep scan from three regions (\`regions=all\`) ÷ from one (\`regions=NL\`), medians | ${bottleneck === undefined ? '—' : `≤ ${RATIO_GOAL}`} | ${fmt(ratio)} | ${bottleneck === undefined ? '—' : ratio <= RATIO_GOAL ? 'met' : 'NOT met'} |`,
        `| ${label}: results exact against the firewall's truth from every region (each region's open and filtered ports, the union, the differences) | all | ${exact(one)} one-region, ${exact(three)} three-region, ${exact(apart)} control | ${wrong.length === 0 ? 'met' : 'NOT met'} |`,
        `| ${label}: three regions ÷ the control (three one-region scans at once), medians | — | ${fmt(apartRatio)} | — |`,
        `| ${label}: three regions ÷ the least time this machine's cores allow it (its CPU ÷ ${cores} cores, or one region's time if longer) | — | ${fmt(medianOf(three) / floor)} | — |`,
      ],
      details: [
        `- ${label}, \`regions=NL\`: median ${fmt(medianOf(one))} s (runs ${runsLine(one)} s); the region's own duration_ms median ${regionLine(one)}; CPU per scan, medians: ${cpuLine(one)}`,
        `- ${label}, \`regions=all\`: median ${fmt(medianOf(three))} s (runs ${runsLine(three)} s); each region's own duration_ms median ${regionLine(three)}; CPU per scan, medians: ${cpuLine(three)}`,
        `- ${label}, control, \`regions=NL\`, \`FR\` and \`UK\` at once: median ${fmt(medianOf(apart))} s (runs ${runsLine(apart)} s); each scan's duration_ms median ${regionLine(apart)}; CPU per run, medians: ${cpuLine(apart)}`,
        ...wrong.slice(0, 5).map((why) => `- ${label}, wrong: ${why}`),
      ],
    };
  } finally {
    stats.disconnect();
    await killAll(nodes);
    await fixture.close();
    await redis.close();
  }
}

async function main(): Promise<void> {
  const paths = await measure(`paths of ${PATH.rateMbit} Mbit/s`, PATH);
  const veths = await measure('bare veths', undefined);
  const lines = [
    `One redis-server (the test fixture: unix socket, no persistence), one API node in the root namespace, and one scanner node in each of three regions (NL, FR, UK), each region a network namespace with its own veth and source address (support/region-namespaces.ts); every node a process of the tsc build with rate limits off, default chunkWindow and info logs, all on this machine (${cpus().length} cores). The target is a netns host: listeners on 22, 25, 80, 8080 and 40022; ${FILTERED.to - FILTERED.from + 1} ports (${FILTERED.from}-${FILTERED.to}) dropped for everyone; 8080 dropped from FR; 25 and 40022 reset from UK. A run is GET /v2/deep?regions=… to its terminal event; ${RUNS} runs of each kind, alternating, after one warm-up of each. The control runs the three regions' work as three scans of one region each (\`regions=NL\`, \`FR\`, \`UK\`) at once, ending with the last.`,
    '',
    `Two fixtures, measured one after the other. **Paths** (the goal's): each region's veth behind a ${PATH.rateMbit} Mbit/s \`tbf\` bottleneck each way, so each region's scan is bound by its own path, as regions on machines of their own are. **Bare veths**: nothing bounds a region but the CPU, and the three regions' scanners share this machine's ${cpus().length} cores, so three regions cost three times the CPU of one on the same cores; the control and the CPU floor show what of that is the machine's.`,
    '',
    '| measure | goal | measured | met |',
    '| --- | --- | --- | --- |',
    ...paths.rows,
    ...veths.rows,
    '',
    ...paths.details,
    ...veths.details,
  ];
  recordSection('regions', 'Multi-region: a deep scan from three regions against one (npm run bench:regions)', lines);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (paths.ratio > RATIO_GOAL || !paths.exact || !veths.exact) process.exitCode = 1;
}

await main();
