// One phase of bench/load/load.ts: N callers with their own loopback addresses,
// started at once or spread evenly over a ramp, each running its flow to the end; then every result
// checked against the truth, and the figures of the phase.
import { loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';

import type { ScanType } from '../../src/api/scan-type.js';
import {
  HEADLINE_KINDS,
  LatencyLog,
  type LatencySummary,
  type LoopDelay,
  listenOverflows,
  machineBusySeconds,
  ownCpuSeconds,
  type ProcessPeaks,
  type RequestKind,
  serverLoopDelay,
  summarise,
} from '../lib/load-metrics.js';
import { keyOf, snapshotTruth, startTruthListeners, wrongness } from '../lib/load-truth.js';
import { type CallerOutcome, type CallerPlan, FLOWS, type Flow, type FlowContext, hookPath, runCaller } from './load-callers.js';
import type { LoadEnv } from './load-env.js';
import { type PostPath, postPaths } from './load-post-path.js';

/** A phase still running after this prints which callers it waits for, and again every as long. */
const PROGRESS_EVERY_MS = 10_000;

export interface PhaseSpec {
  label: string;
  /** Callers are 127.<block>.x.y, from the `firstIndex`-th on. */
  block: number;
  firstIndex?: number;
  fast: number;
  deep: number;
  flows: readonly Flow[];
  pollMs: number;
  /** Callers start evenly over this many milliseconds; 0: all at once. */
  rampMs: number;
}

export interface PhaseResult {
  spec: PhaseSpec;
  outcomes: CallerOutcome[];
  /** Addresses with listeners, and the open ports the truth expects over all callers. */
  listening: number;
  expectedOpen: number;
  /** Wall time from the first request to the last caller learning its result (or giving up). */
  activeMs: number;
  completed: number;
  latency: { headline: LatencySummary; byKind: Map<RequestKind, LatencySummary> };
  /** Caller-observed time from the starting request to the final result, complete scans only. */
  toComplete: Map<ScanType, number[]>;
  /** The same by flow. */
  toCompleteByFlow: Map<string, number[]>;
  /** duration_ms of the results: the scan's own run time, without its wait in the queue. */
  scanDurations: Map<ScanType, number[]>;
  peaks: ProcessPeaks;
  /** The server's VmHWM after the phase: its exact peak RSS since it started. */
  highWaterKiB: number;
  serverCpuSeconds: number;
  harnessCpuSeconds: number;
  /** The harness's own event-loop delay over the phase: how late, at worst, it reads an answer that has arrived. */
  harnessLoopDelayMs: LoopDelay;
  /** The server's event-loop delay over the phase (its /metrics): about how long a turn of its loop took. */
  serverLoopDelayMs: LoopDelay;
  /** Connections the kernel dropped for a full listen queue during the phase (system-wide). */
  listenOverflows: number;
  /** Busy CPU of the machine outside the server and the harness: other processes, interrupts. */
  otherCpuSeconds: number;
  /** The 1-minute load average when the phase started. */
  loadAverage: number;
  errors: string[];
  wrong: string[];
  webhooks: { expected: number; missing: number; extra: number };
  /** Callers whose truth changed between the snapshots before and after the run. */
  truthChanged: number;
  /** From the server's own log: its handling time of each request (`ms`), by method and path. */
  serverRequestMs: Map<string, LatencySummary>;
  /** Each caller's POST split at the server's handler, by flow. */
  postPaths: Map<string, PostPath>;
  /** From the server's own log: scan_queued to scan_finished of each scan, by scan type. */
  serverQueuedToFinished: Map<ScanType, LatencySummary>;
}

/** How often the harness's event loop is timed (ms). */
const LOOP_SAMPLING_MS = 2;

/** The i-th caller of a block: 127.block.x.y with y in 1..250. */
export function callerAddress(block: number, i: number): string {
  return `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** Deep callers spread evenly among the fast ones; flows round-robin within each scan type. */
export function planCallers(spec: PhaseSpec): CallerPlan[] {
  const total = spec.fast + spec.deep;
  const next: Record<ScanType, number> = { fast: 0, deep: 0, udp: 0 };
  return Array.from({ length: total }, (_, i) => {
    const scanType: ScanType = Math.floor(((i + 1) * spec.deep) / total) > Math.floor((i * spec.deep) / total) ? 'deep' : 'fast';
    const flow = spec.flows[next[scanType]++ % spec.flows.length]!;
    return { address: callerAddress(spec.block, (spec.firstIndex ?? 0) + i), scanType, flow, delayMs: (i * spec.rampMs) / total };
  });
}

export async function runPhase(env: LoadEnv, spec: PhaseSpec, deadline: number): Promise<PhaseResult> {
  const plans = planCallers(spec);
  const listeners = await startTruthListeners(plans);
  try {
    const before = snapshotTruth(plans);
    const firstLog = env.logs().length;
    env.sampler.resetPeak();
    const serverCpu = env.sampler.cpuSeconds();
    const harnessCpu = ownCpuSeconds();
    const overflows = listenOverflows();
    const machineBusy = machineBusySeconds();
    const loadAverage = loadavg()[0]!;
    const latencies = new LatencyLog();
    const ctx: FlowContext = { baseUrl: env.baseUrl, latencies, inbox: env.inbox, pollMs: spec.pollMs, deadline };
    const pending = new Map(FLOWS.map((flow) => [flow, plans.filter((plan) => plan.flow === flow).length]));
    const finished = (flow: Flow): void => void pending.set(flow, pending.get(flow)! - 1);
    await serverLoopDelay(env.baseUrl); // resets the server's histogram: what it says at the end is the phase's
    const startedAt = performance.now();
    const loopDelay = monitorEventLoopDelay({ resolution: LOOP_SAMPLING_MS });
    loopDelay.enable();
    const progress = setInterval(() => {
      const left = [...pending].filter(([, n]) => n > 0).map(([flow, n]) => `${flow} ${n}`);
      console.error(`  … ${((performance.now() - startedAt) / 1000).toFixed(0)} s: callers still running: ${left.join(', ') || 'none'}`);
    }, PROGRESS_EVERY_MS);
    let outcomes: CallerOutcome[];
    try {
      outcomes = await Promise.all(
        plans.map(async (plan) => {
          const outcome = await runCaller(ctx, plan);
          finished(plan.flow);
          return outcome;
        }),
      );
    } finally {
      clearInterval(progress);
    }
    const endedAt = performance.now();
    loopDelay.disable();
    const nsToMs = (ns: number): number => ns / 1e6;
    // The histogram's figures include its timer's interval: the delay is what is beyond it.
    const beyondTimer = (ns: number): number => Math.max(0, nsToMs(ns) - LOOP_SAMPLING_MS);
    const harnessLoopDelayMs = { p50: beyondTimer(loopDelay.percentile(50)), p99: beyondTimer(loopDelay.percentile(99)), max: beyondTimer(loopDelay.max) };
    const serverLoopDelayMs = await serverLoopDelay(env.baseUrl);
    const peaks = env.sampler.peak();
    const serverCpuSeconds = env.sampler.cpuSeconds() - serverCpu;
    const harnessCpuSeconds = ownCpuSeconds() - harnessCpu;
    const listenOverflowed = listenOverflows() - overflows;
    const otherCpuSeconds = machineBusySeconds() - machineBusy - serverCpuSeconds - harnessCpuSeconds;
    const after = snapshotTruth(plans);
    const phaseLines = env.logs().slice(firstLog);
    const flowOf = new Map(plans.map((plan) => [plan.address, plan.flow]));
    // Scans ran until the last caller learnt its result, or, if some never did, until every caller gave up.
    const lastFinish = outcomes.every((o) => o.finishedAt !== null) ? outcomes.reduce((last, o) => Math.max(last, o.finishedAt!), startedAt) : endedAt;
    return {
      ...analyse(spec, outcomes, before, after, env),
      listening: listeners.addresses.size,
      expectedOpen: [...before.values()].reduce((sum, ports) => sum + ports.length, 0),
      activeMs: lastFinish - startedAt,
      latency: {
        headline: latencies.summary(HEADLINE_KINDS, startedAt, lastFinish),
        byKind: new Map(
          (['POST', 'GET poll', 'v2 open', 'MCP call', 'MCP connect', 'TCP connect'] as const).map((kind) => [
            kind,
            latencies.summary([kind], startedAt, lastFinish),
          ]),
        ),
      },
      peaks,
      highWaterKiB: env.sampler.highWaterKiB(),
      serverCpuSeconds,
      harnessCpuSeconds,
      harnessLoopDelayMs,
      serverLoopDelayMs,
      listenOverflows: listenOverflowed,
      otherCpuSeconds,
      loadAverage,
      ...serverSide(phaseLines, new Set(plans.map((plan) => plan.address))),
      postPaths: postPaths(latencies.all(), phaseLines, (caller) => flowOf.get(caller) ?? 'other'),
    };
  } finally {
    await listeners.close();
  }
}

/** What the server's log says about the phase: request handling times and scan times. */
function serverSide(lines: Record<string, unknown>[], callers: Set<string>): Pick<PhaseResult, 'serverRequestMs' | 'serverQueuedToFinished'> {
  const requests = new Map<string, number[]>();
  const queuedAt = new Map<string, number>();
  const scans = new Map<ScanType, number[]>([
    ['fast', []],
    ['deep', []],
  ]);
  for (const line of lines) {
    if (!callers.has(String(line.ip))) continue;
    if (line.event === 'request' && typeof line.ms === 'number' && line.status !== 'aborted') {
      const key = `${String(line.method)} ${String(line.path)}`;
      if (!requests.has(key)) requests.set(key, []);
      requests.get(key)!.push(line.ms);
    } else if (line.event === 'scan_queued') {
      queuedAt.set(String(line.scanId), Number(line.time));
    } else if (line.event === 'scan_finished' && queuedAt.has(String(line.scanId))) {
      scans.get(line.scanType as ScanType)?.push(Number(line.time) - queuedAt.get(String(line.scanId))!);
    }
  }
  return {
    serverRequestMs: new Map([...requests].filter(([key]) => !key.startsWith('GET /v2/')).map(([key, values]) => [key, summarise(values)])),
    serverQueuedToFinished: new Map([...scans].filter(([, values]) => values.length > 0).map(([type, values]) => [type, summarise(values)])),
  };
}

type Analysis = Pick<
  PhaseResult,
  'spec' | 'outcomes' | 'completed' | 'toComplete' | 'toCompleteByFlow' | 'scanDurations' | 'errors' | 'wrong' | 'webhooks' | 'truthChanged'
>;

function analyse(spec: PhaseSpec, outcomes: CallerOutcome[], before: Map<string, number[]>, after: Map<string, number[]>, env: LoadEnv): Analysis {
  const toComplete = new Map<ScanType, number[]>([
    ['fast', []],
    ['deep', []],
  ]);
  const toCompleteByFlow = new Map<string, number[]>();
  const scanDurations = new Map<ScanType, number[]>([
    ['fast', []],
    ['deep', []],
  ]);
  const errors: string[] = [];
  const wrong: string[] = [];
  const webhooks = { expected: 0, missing: 0, extra: 0 };
  let completed = 0;
  let truthChanged = 0;
  for (const outcome of outcomes) {
    const { plan, result } = outcome;
    errors.push(...outcome.errors);
    const truthBefore = before.get(keyOf(plan))!;
    const truthAfter = after.get(keyOf(plan))!;
    if (truthBefore.join() !== truthAfter.join()) truthChanged++;
    if (plan.flow === 'webhook') {
      webhooks.expected++;
      const deliveries = new Set(env.inbox.deliveries(hookPath(plan)).map((hook) => String(hook.headers['x-selfscan-delivery'])));
      if (deliveries.size === 0) webhooks.missing++;
      webhooks.extra += Math.max(0, deliveries.size - 1);
    }
    if (result === null) {
      if (outcome.errors.length === 0) errors.push(`${plan.flow} ${plan.scanType} ${plan.address}: no result`);
      continue;
    }
    const status = (result as { status?: unknown }).status;
    if (status === 'complete') {
      completed++;
      const duration = (result as { duration_ms?: unknown }).duration_ms;
      if (typeof duration === 'number') scanDurations.get(plan.scanType)!.push(duration);
      if (outcome.finishedAt !== null) {
        const ms = outcome.finishedAt - outcome.startedAt;
        toComplete.get(plan.scanType)!.push(ms);
        const key = `${plan.scanType} ${plan.flow}`;
        if (!toCompleteByFlow.has(key)) toCompleteByFlow.set(key, []);
        toCompleteByFlow.get(key)!.push(ms);
      }
    }
    const reason = wrongness(plan, result, [truthBefore, truthAfter]);
    if (reason !== null) wrong.push(`${plan.flow} ${plan.scanType} ${plan.address}: ${reason}`);
  }
  return { spec, outcomes, completed, toComplete, toCompleteByFlow, scanDurations, errors, wrong, webhooks, truthChanged };
}

/** The must-be-zero counts of a phase. */
export function failures(result: PhaseResult): number {
  return result.errors.length + result.wrong.length + result.webhooks.missing;
}
