// npm run bench:load — many callers at once, each scanning its own address.
//
// On one machine the whole 127.0.0.0/8 block is ours: a client bound to
// 127.1.3.17 is a caller whose target is 127.1.3.17. `selfscan serve` runs
// as a child process (--allow-private-targets, private callbacks allowed,
// rate limits off, PTR lookups to a loopback DNS server; everything else,
// the number of scans running at once included, at its default). Each
// caller gets its own loopback address and runs one flow to its end, flows
// round-robin: v1 POST + GET polls, v2 stream, v1 POST with a webhook to a
// local receiver, MCP tool calls (left out, with a note, if the endpoint
// does not answer). Listeners on ~2% of the callers' addresses give open
// ports; every result is checked against /proc/net/tcp. The callers share
// this thread over lean raw-socket HTTP (load-http.ts; MCP through
// load-mcp.ts); the PTR lookups' DNS server runs in a worker thread. Reported: scans/s, API latency
// (client-side, and the server's own handling time from its log), request
// to complete by scan type and flow, the server's peak RSS, open fds and
// CPU, and the counts that must be zero.
//
//   --callers N         callers (default 1000, at most 8000)
//   --mix F:D           fast:deep ratio of the callers: 1000:0, 950:50...; or
//                       fast (1:0), deep (0:1), mixed (95:5). Default fast.
//   --flows LIST        v1,v2,webhook,mcp (default all four)
//   --poll-ms MS        interval of v1 and MCP polls (default 200)
//   --ramp-ms MS        callers start evenly over this window (default 1000:
//                       "1,000 callers within one second"); 0: all at once
//   --warm-up N         unmeasured fast callers of every flow before the
//                       fast phase, so it meets a server whose code is
//                       compiled (default 1000; 0: one scan)
//   --time-limit S      the whole run, then it stops by itself (default 300
//                       for each front of --http-server)
//   --http-server LIST  the server's setting http.server: auto (default),
//                       uws, node, or several (uws,node): the run is repeated
//                       on each, one after another, each on fresh servers
//   --profile-server D  CPU-profile the server; its .cpuprofile is written to
//                       directory D when it stops (SIGTERM instead of SIGKILL)
//   --scenario goals    the issue's goals, recorded in bench/RESULTS.md:
//                       --callers (1000) fast scans at once (and, for
//                       comparison, the same again without the MCP flow);
//                       then, on a fresh server, three lone deep scans one
//                       after another and --deep-callers (50) deep scans at
//                       once; with several fronts, a table of both first
//
// Exits 1 if any error, wrong result or missing webhook delivery occurred,
// or at the time limit (after killing the server).
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

import type { ScanType } from '../../src/api/scan-type.js';
import { HTTP_SERVER_CHOICES, type HttpServerChoice } from '../../src/config/http-server-choices.js';
import { LatencyLog, percentile } from '../lib/load-metrics.js';
import { machineLine } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';
import { FLOWS, type Flow, runCaller } from './load-callers.js';
import { killAllServers, type LoadEnv, startLoadEnv } from './load-env.js';
import { failures, type PhaseResult, type PhaseSpec, runPhase } from './load-phase.js';
import { fmt, markdown, phaseLines, problemLines, seconds } from './load-report.js';

const { values } = parseArgs({
  options: {
    callers: { type: 'string', default: '1000' },
    mix: { type: 'string', default: 'fast' },
    flows: { type: 'string', default: FLOWS.join(',') },
    'poll-ms': { type: 'string', default: '200' },
    'ramp-ms': { type: 'string', default: '1000' },
    'warm-up': { type: 'string', default: '1000' },
    'time-limit': { type: 'string' },
    'http-server': { type: 'string', default: 'auto' },
    scenario: { type: 'string' },
    'deep-callers': { type: 'string', default: '50' },
    'profile-server': { type: 'string' },
  },
});

function wholeNumber(text: string, name: string, min: number, max: number): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}, got ${text}`);
  return n;
}

const SHORTHANDS: Record<string, string> = { fast: '1:0', deep: '0:1', mixed: '95:5' };

/** Fast and deep caller counts for `callers` callers in the ratio `mix`. */
function parseMix(mix: string, callers: number): { fast: number; deep: number } {
  const match = /^(\d+):(\d+)$/.exec(SHORTHANDS[mix] ?? mix);
  const [f, d] = [Number(match?.[1]), Number(match?.[2])];
  if (match === null || f + d === 0) throw new Error(`--mix must be FAST:DEEP (like 950:50) or fast, deep, mixed; got ${mix}`);
  const deep = Math.round((callers * d) / (f + d));
  return { fast: callers - deep, deep };
}

// Bounds: each caller holds a socket in this process and one in the server (fd limit 20,000 here).
const callers = wholeNumber(values.callers, 'callers', 1, 8_000);
const deepCallers = wholeNumber(values['deep-callers'], 'deep-callers', 1, 1_000);
const pollMs = wholeNumber(values['poll-ms'], 'poll-ms', 20, 60_000);
const rampMs = wholeNumber(values['ramp-ms'], 'ramp-ms', 0, 60_000);
const warmUpCount = wholeNumber(values['warm-up'], 'warm-up', 0, 2_000);
const fronts = [...new Set(values['http-server'].split(',').map((f) => f.trim()))] as HttpServerChoice[];
if (fronts.length === 0 || fronts.some((f) => !HTTP_SERVER_CHOICES.includes(f)))
  throw new Error(`--http-server must list some of ${HTTP_SERVER_CHOICES.join(', ')}`);
const timeLimitS = wholeNumber(values['time-limit'] ?? String(300 * fronts.length), 'time-limit', 20, 3_600);
const flows = values.flows.split(',').map((f) => f.trim()) as Flow[];
if (flows.length === 0 || flows.some((f) => !FLOWS.includes(f))) throw new Error(`--flows must list some of ${FLOWS.join(', ')}`);
if (values.scenario !== undefined && values.scenario !== 'goals') throw new Error(`--scenario: only "goals" exists, got ${values.scenario}`);
const mix = parseMix(values.mix, callers);

/** Past this, phases stop their callers (time left for the report and cleanup). */
const deadline = performance.now() + timeLimitS * 1000 - 10_000;
const watchdog = setTimeout(() => {
  console.error(`bench:load: still running after the ${timeLimitS} s time limit; killing the server and stopping`);
  killAllServers();
  process.exit(1);
}, timeLimitS * 1000);
watchdog.unref();
process.on('exit', killAllServers);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllServers();
    process.exit(130);
  });
}

/** Flows usable against `env`: MCP only if its probe answered. */
function usableFlows(env: LoadEnv): Flow[] {
  if (env.mcp.ok || !flows.includes('mcp')) return flows;
  console.log(`note: ${env.mcp.note}; the MCP share is 0 in this run`);
  const rest = flows.filter((flow) => flow !== 'mcp');
  if (rest.length === 0) throw new Error('only the MCP flow was asked for, and the MCP endpoint is not usable');
  return rest;
}

function serverLine(env: LoadEnv): string {
  return `server defaults: HTTP front ${env.httpServer}, concurrency fast ${env.concurrency.fast}, deep ${env.concurrency.deep} (socket budget ${fmt(env.socketBudget)} / 32 and / 512); ${env.mcp.ok ? 'MCP flow on' : `MCP flow off (${env.mcp.note})`}`;
}

/** One unmeasured scan of a harness address, so the phase does not meet a cold server. */
async function warmUp(env: LoadEnv, scanType: ScanType): Promise<void> {
  const ctx = { baseUrl: env.baseUrl, latencies: new LatencyLog(), inbox: env.inbox, pollMs: 50, deadline };
  const outcome = await runCaller(ctx, { address: '127.9.0.3', scanType, flow: 'v1' });
  if (outcome.errors.length > 0) throw new Error(`warm-up ${scanType} scan failed: ${outcome.errors.join('; ')}`);
}

/**
 * Unmeasured fast callers of every flow (from 127.8.x.y) before a measured
 * phase: the server's code paths are then compiled as a server that has
 * served for a while has them, not interpreted as at start-up.
 */
async function warmUpCallers(env: LoadEnv): Promise<void> {
  if (warmUpCount === 0) return warmUp(env, 'fast');
  const started = performance.now();
  const result = await runPhase(env, { label: 'warm-up', block: 8, fast: warmUpCount, deep: 0, flows: usableFlows(env), pollMs, rampMs }, deadline);
  if (failures(result) > 0) throw new Error(`warm-up callers failed: ${[...problemLines(result), `${result.webhooks.missing} webhooks missing`].join('; ')}`);
  console.log(`warm-up: ${fmt(warmUpCount)} fast callers of every flow, unmeasured, in ${seconds(performance.now() - started)}`);
}

async function phase(env: LoadEnv, spec: PhaseSpec): Promise<PhaseResult> {
  console.log(
    `— ${spec.label} (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
  const result = await runPhase(env, spec, deadline);
  for (const line of phaseLines(result, pollMs)) console.log(line);
  for (const line of problemLines(result)) console.error(line);
  return result;
}

async function withEnv<T>(front: HttpServerChoice, use: (env: LoadEnv) => Promise<T>): Promise<T> {
  const env = await startLoadEnv(front, values['profile-server']);
  try {
    console.log(serverLine(env));
    return await use(env);
  } finally {
    await env.close();
  }
}

async function customRun(front: HttpServerChoice): Promise<number> {
  const result = await withEnv(front, async (env) => {
    await warmUpCallers(env);
    const label = `${fmt(mix.fast)} fast + ${fmt(mix.deep)} deep`;
    return phase(env, { label, block: 1, ...mix, flows: usableFlows(env), pollMs, rampMs });
  });
  return failures(result);
}

/** One front's run of the goals: its printed lines and the figures of the table that compares fronts. */
interface GoalsRun {
  front: string;
  bad: number;
  goalLines: string[];
  detailLines: string[];
  fast: PhaseResult;
  fastMet: boolean;
  withoutMcp: PhaseResult | null;
  deepRatio: number;
  deepMet: boolean;
}

async function goalsOn(front: HttpServerChoice): Promise<GoalsRun> {
  const fastResult = await withEnv(front, async (env) => {
    const header = serverLine(env);
    await warmUpCallers(env);
    const usable = usableFlows(env);
    const result = await phase(env, {
      label: `${fmt(callers)} fast scans${rampMs > 0 ? ` started within ${fmt(rampMs / 1000, 1)} s` : ' at once'}`,
      block: 1,
      fast: callers,
      deep: 0,
      flows: usable,
      pollMs,
      rampMs,
    });
    // For comparison only (no goal): the same load without the MCP callers, on the same server, from new addresses.
    const rest = usable.filter((flow) => flow !== 'mcp');
    const withoutMcp =
      rest.length > 0 && rest.length < usable.length
        ? await phase(env, {
            label: `for comparison, the same ${fmt(callers)} fast scans without the MCP flow`,
            block: 4,
            fast: callers,
            deep: 0,
            flows: rest,
            pollMs,
            rampMs,
          })
        : null;
    return { header, result, withoutMcp, httpServer: env.httpServer };
  });
  const deepResult = await withEnv(front, async (env) => {
    const header = serverLine(env);
    await warmUp(env, 'fast');
    const lone: PhaseResult[] = [];
    for (let k = 0; k < 3; k++) {
      lone.push(await phase(env, { label: `lone deep scan ${k + 1} of 3`, block: 3, firstIndex: k, fast: 0, deep: 1, flows: ['v2'], pollMs, rampMs: 0 }));
    }
    const many = await phase(env, {
      label: `${deepCallers} concurrent deep scans`,
      block: 2,
      fast: 0,
      deep: deepCallers,
      flows: usableFlows(env),
      pollMs,
      rampMs: 0,
    });
    return { header, lone, many };
  });

  const fast = fastResult.result;
  const fastP99 = fast.latency.headline.p99;
  const fastMet = failures(fast) === 0 && fast.completed === callers && fastP99 < 50;
  const loneTimes = deepResult.lone.map((r) => r.toComplete.get('deep')![0] ?? NaN);
  const loneMs = percentile(loneTimes, 0.5);
  const many = deepResult.many;
  const manyTimes = [...many.toComplete.get('deep')!].sort((a, b) => a - b);
  const maxMs = manyTimes.at(-1) ?? NaN;
  const ratio = maxMs / loneMs;
  const loneRate = 65_535 / (loneMs / 1000);
  const manyRate = (many.completed * 65_535) / (many.activeMs / 1000);
  const deepMet = failures(many) === 0 && deepResult.lone.every((r) => failures(r) === 0) && many.completed === deepCallers && ratio <= 5;
  const deepLines = [
    `deep scans, a fresh server: ${deepResult.header}`,
    `  lone deep scans (one caller at a time, v2 stream, exact): ${loneTimes.map(seconds).join(', ')}; median ${seconds(loneMs)} = ${fmt(loneRate)} ports/s; server duration_ms ${deepResult.lone.map((r) => r.scanDurations.get('deep')![0] ?? NaN).join(', ')}`,
    `  ${deepCallers} concurrent deep scans, each caller's time from request to complete (s): ${manyTimes.map((t) => fmt(t / 1000, 1)).join(' ')}`,
    `  slowest ${seconds(maxMs)} = ${fmt(ratio, 1)}× the lone median (goal ≤ 5×); aggregate ${fmt(many.completed)} × 65,535 ports in ${seconds(many.activeMs)} = ${fmt(manyRate)} ports/s, ${fmt(manyRate / loneRate, 2)}× the lone scan's rate; a scan's own run time (duration_ms) median ${seconds(percentile(many.scanDurations.get('deep')!, 0.5))}, max ${seconds(percentile(many.scanDurations.get('deep')!, 1))}`,
  ];
  const goalLines = [
    `Goal 1, ${fmt(callers)} callers each starting a fast scan${rampMs > 0 ? ` within ${fmt(rampMs / 1000, 1)} s` : ' at once'}, all exact, p99 API latency < 50 ms: ${fastMet ? 'met' : 'NOT met'} (${fmt(fast.completed)} complete, ${fast.wrong.length} wrong, ${fast.errors.length} errors, ${fast.webhooks.missing} webhooks missing, p99 ${fmt(fastP99, 1)} ms)`,
    `Goal 2, ${deepCallers} concurrent deep scans from distinct callers, all exact, each within 5× a lone deep scan: ${deepMet ? 'met' : 'NOT met'} (${fmt(many.completed)} complete, ${many.wrong.length} wrong, ${many.errors.length} errors, ${many.webhooks.missing} webhooks missing; slowest ${fmt(ratio, 1)}× lone)`,
  ];
  for (const line of [...deepLines, ...goalLines]) console.log(line);
  const nested = (result: PhaseResult): string[] => phaseLines(result, pollMs).map((line) => `  ${line.trim()}`);
  const fastLines = [`fast scans: ${fastResult.header}`, ...nested(fast), ...(fastResult.withoutMcp === null ? [] : nested(fastResult.withoutMcp))];
  const phases = [fast, ...(fastResult.withoutMcp === null ? [] : [fastResult.withoutMcp]), ...deepResult.lone, many];
  return {
    front: fastResult.httpServer,
    bad: phases.reduce((sum, r) => sum + failures(r), 0),
    goalLines,
    detailLines: [...fastLines, ...deepLines, ...nested(many)],
    fast,
    fastMet,
    withoutMcp: fastResult.withoutMcp,
    deepRatio: ratio,
    deepMet,
  };
}

const FRONT_TITLES: Record<string, string> = { uws: 'uWS front (uWebSockets.js)', node: "Node front (Node's own node:http)" };

/** The table that puts the fronts' figures side by side. */
function frontTable(runs: readonly GoalsRun[]): string[] {
  const ms = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '–' : fmt(n, n < 100 ? 1 : 0));
  const row = (run: GoalsRun): string => {
    const f = run.fast;
    const post = f.latency.byKind.get('POST');
    const handled = f.serverRequestMs.get('POST /v1/fast');
    const poll = f.latency.byKind.get('GET poll');
    const mcp = f.latency.byKind.get('MCP call');
    const tcp = f.latency.byKind.get('TCP connect');
    const rest = run.withoutMcp;
    return [
      '',
      run.front,
      `${fmt(f.completed)}/${fmt(f.outcomes.length)}, ${f.wrong.length}, ${f.errors.length}, ${f.webhooks.missing}`,
      `**${ms(f.latency.headline.p99)}** (${run.fastMet ? 'met' : 'NOT met'})`,
      ms(f.latency.headline.p50),
      `${ms(post?.p50)} / ${ms(post?.p99)}`,
      `${ms(tcp?.p50)} / ${ms(tcp?.p99)}`,
      fmt(f.listenOverflows),
      `${ms(handled?.p50)} / ${ms(handled?.p99)}`,
      `${ms(poll?.p50)} / ${ms(poll?.p99)}`,
      `${ms(mcp?.p50)} / ${ms(mcp?.p99)}`,
      `${seconds(f.activeMs)}, ${fmt(f.completed / (f.activeMs / 1000), 0)}/s`,
      `${fmt(f.serverCpuSeconds, 1)} s`,
      rest === null
        ? '–'
        : `${ms(rest.latency.headline.p99)} (POST ${ms(rest.latency.byKind.get('POST')?.p99)}, server ${ms(rest.serverRequestMs.get('POST /v1/fast')?.p99)})`,
      `${fmt(run.deepRatio, 1)}× (${run.deepMet ? 'met' : 'NOT met'})`,
      '',
    ]
      .join(' | ')
      .trim();
  };
  return [
    `| front | goal 1: complete, wrong, errors, webhooks missing | goal 1: p99 API latency, ms (goal < 50) | p50, ms | POST p50 / p99, ms | callers' TCP connect p50 / p99, ms | SYNs dropped by a full listen queue (system-wide) | the server's handling of POST /v1/fast p50 / p99, ms (its log) | GET poll p50 / p99, ms | MCP call p50 / p99, ms | all ${fmt(callers)} complete in | server CPU over the phase | without the MCP flow: p99, ms | goal 2: slowest deep ÷ lone (goal ≤ 5×) |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...runs.map(row),
  ];
}

async function goals(): Promise<number> {
  const runs: GoalsRun[] = [];
  for (const front of fronts) {
    if (fronts.length > 1) console.log(`=== http.server ${front} ===`);
    runs.push(await goalsOn(front));
  }
  if (runs.length > 1) for (const line of frontTable(runs)) console.log(line);
  const intro = `\`selfscan serve\` as a child process with its default settings (rate limits off, private targets and callbacks allowed, PTR lookups answered NXDOMAIN by a loopback DNS server${fronts.length > 1 || fronts[0] !== 'auto' ? `; setting http.server ${fronts.join(', then ')}, each on fresh servers, one after another` : ''}), ${warmUpCount > 0 ? `${fmt(warmUpCount)} unmeasured fast callers of every flow on each fresh server first (its code compiled as a server's that has served a while), then the measured callers started evenly over ${fmt(rampMs)} ms` : 'one unmeasured fast scan on each fresh server first'}; each caller a distinct loopback address (127.x.y.z) and its own scan target, flows round-robin (v1 POST + GET every ${pollMs} ms, v2 stream, v1 POST with webhook to a local receiver, MCP tool calls); listeners on ~2% of the callers' addresses; every result checked against /proc/net/tcp. Latency is client-side (request sent to whole answer read; for MCP one tool call), over every request that started while scans ran; the server's own handling time from its log is beside it. every caller uses one raw keep-alive socket in the harness's main thread (MCP callers send what the SDK's client sends, bench/lib/load-mcp.ts), the DNS server a worker thread: harness and server share the machine's 2 cores, and the harness's CPU is given.`;
  const body =
    runs.length === 1
      ? markdown([...runs[0]!.goalLines, ...runs[0]!.detailLines])
      : [
          ...frontTable(runs),
          '',
          ...runs.flatMap((run) => [`**${FRONT_TITLES[run.front] ?? run.front}**`, '', ...markdown([...run.goalLines, ...run.detailLines]), '']),
        ];
  const command = `npm run bench:load -- --scenario goals${fronts.length === 1 && fronts[0] === 'auto' ? '' : ` --http-server ${fronts.join(',')}`}`;
  recordSection('load', `Load: many loopback callers at once, each scanning its own address (${command})`, [intro, '', ...body]);
  return runs.reduce((sum, run) => sum + run.bad, 0);
}

let exitCode = 1;
try {
  console.log(`machine: ${machineLine()}`);
  let bad = 0;
  if (values.scenario === 'goals') bad = await goals();
  else for (const front of fronts) bad += await customRun(front);
  if (bad > 0) console.error(`bench:load: ${bad} errors, wrong results or missing webhook deliveries`);
  exitCode = bad > 0 ? 1 : 0;
} catch (error) {
  console.error(`bench:load: ${(error as Error).stack ?? String(error)}`);
} finally {
  clearTimeout(watchdog);
}
process.exit(exitCode);
