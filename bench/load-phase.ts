// One phase of bench/load.ts: N callers with their own loopback addresses,
// all started at once, each running its flow to the end; then every result
// checked against the truth, and the figures of the phase.
import { type CallerOutcome, type CallerPlan, type Flow, type FlowContext, hookPath, runCaller } from './load-callers.js';
import type { LoadEnv } from './load-env.js';
import { HEADLINE_KINDS, LatencyLog, type LatencySummary, ownCpuSeconds, type ProcessPeaks, type RequestKind } from './load-metrics.js';
import { keyOf, type ScanType, snapshotTruth, startTruthListeners, wrongness } from './load-truth.js';

export interface PhaseSpec {
  label: string;
  /** Callers are 127.<block>.x.y, from the `firstIndex`-th on. */
  block: number;
  firstIndex?: number;
  fast: number;
  deep: number;
  flows: readonly Flow[];
  pollMs: number;
}

export interface PhaseResult {
  spec: PhaseSpec;
  outcomes: CallerOutcome[];
  /** Addresses with listeners, and the open ports the truth expects over all callers. */
  listening: number;
  expectedOpen: number;
  /** Wall time from the first request to the last caller learning its result. */
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
  serverCpuSeconds: number;
  harnessCpuSeconds: number;
  errors: string[];
  wrong: string[];
  webhooks: { expected: number; missing: number; extra: number };
  /** Callers whose truth changed between the snapshots before and after the run. */
  truthChanged: number;
}

/** The i-th caller of a block: 127.block.x.y with y in 1..250. */
export function callerAddress(block: number, i: number): string {
  return `127.${block}.${Math.floor(i / 250)}.${(i % 250) + 1}`;
}

/** Deep callers spread evenly among the fast ones; flows round-robin within each scan type. */
export function planCallers(spec: PhaseSpec): CallerPlan[] {
  const total = spec.fast + spec.deep;
  const next: Record<ScanType, number> = { fast: 0, deep: 0 };
  return Array.from({ length: total }, (_, i) => {
    const scanType: ScanType = Math.floor(((i + 1) * spec.deep) / total) > Math.floor((i * spec.deep) / total) ? 'deep' : 'fast';
    const flow = spec.flows[next[scanType]++ % spec.flows.length]!;
    return { address: callerAddress(spec.block, (spec.firstIndex ?? 0) + i), scanType, flow };
  });
}

export async function runPhase(env: LoadEnv, spec: PhaseSpec, deadline: number): Promise<PhaseResult> {
  const plans = planCallers(spec);
  const listeners = await startTruthListeners(plans);
  try {
    const before = snapshotTruth(plans);
    env.sampler.resetPeak();
    const serverCpu = env.sampler.cpuSeconds();
    const harnessCpu = ownCpuSeconds();
    const latencies = new LatencyLog();
    const ctx: FlowContext = { baseUrl: env.baseUrl, latencies, inbox: env.inbox, pollMs: spec.pollMs, deadline };
    const startedAt = performance.now();
    const outcomes = await Promise.all(plans.map((plan) => runCaller(ctx, plan)));
    const peaks = env.sampler.peak();
    const serverCpuSeconds = env.sampler.cpuSeconds() - serverCpu;
    const harnessCpuSeconds = ownCpuSeconds() - harnessCpu;
    const after = snapshotTruth(plans);
    const lastFinish = outcomes.reduce((last, o) => Math.max(last, o.finishedAt ?? 0), startedAt);
    return {
      ...analyse(spec, outcomes, before, after, env),
      listening: listeners.addresses.size,
      expectedOpen: [...before.values()].reduce((sum, ports) => sum + ports.length, 0),
      activeMs: lastFinish - startedAt,
      latency: {
        headline: latencies.summary(HEADLINE_KINDS, startedAt, lastFinish),
        byKind: new Map((['POST', 'GET poll', 'v2 open', 'MCP call', 'MCP connect'] as const).map((kind) => [kind, latencies.summary([kind], startedAt, lastFinish)])),
      },
      peaks,
      serverCpuSeconds,
      harnessCpuSeconds,
    };
  } finally {
    await listeners.close();
  }
}

type Analysis = Pick<PhaseResult, 'spec' | 'outcomes' | 'completed' | 'toComplete' | 'toCompleteByFlow' | 'scanDurations' | 'errors' | 'wrong' | 'webhooks' | 'truthChanged'>;

function analyse(spec: PhaseSpec, outcomes: CallerOutcome[], before: Map<string, number[]>, after: Map<string, number[]>, env: LoadEnv): Analysis {
  const toComplete = new Map<ScanType, number[]>([['fast', []], ['deep', []]]);
  const toCompleteByFlow = new Map<string, number[]>();
  const scanDurations = new Map<ScanType, number[]>([['fast', []], ['deep', []]]);
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
        toCompleteByFlow.set(key, [...(toCompleteByFlow.get(key) ?? []), ms]);
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
