// One phase of bench/cluster/cluster.ts: N callers, each on its own loopback
// address, arriving all at once or at a steady rate, start a fast scan through the API nodes (round-robin) and poll
// it (alternating nodes) until it ends; every result is checked against
// the truth. Reported: time to the last result, scans/s, latency of every
// API request, wrong results. Callers use bench/load/load.ts's lean client (one
// keep-alive connection per caller and node): undici would cost this
// harness more CPU than the nodes spend answering, on the same 2 cores.
import { performance } from 'node:perf_hooks';

import { CallerConnection, type HttpResponse } from '../lib/load-http.js';
import { type LatencySummary, summarise } from '../lib/load-metrics.js';
import { keyOf, snapshotTruth, startTruthListeners, type Target, wrongness } from '../lib/load-truth.js';

/** CPU seconds so far, by process group. */
export type CpuTimes = Record<string, number>;

export interface FastPhase {
  callers: number;
  /** Callers starting per second; Infinity: all at once. */
  arrivalPerSecond: number;
  seconds: number;
  exact: number;
  wrong: string[];
  latency: LatencySummary;
  /** The scan starts' (POST) alone. */
  startLatency: LatencySummary;
  /** CPU used by each group from the first caller's start to the last result. */
  cpu: CpuTimes;
  /** With groupOf: each group's callers' latencies, and its time to its last result. */
  byGroup: Record<string, { latency: LatencySummary; startLatency: LatencySummary; seconds: number }>;
}

const POLL_MS = 200;
const CALLER_TIMEOUT_MS = 120_000;

/** Caller i of block `block`: 127.<block>.<i / 250>.<1 + i % 250>. */
export function callerAddress(block: number, i: number): string {
  return `127.${block}.${Math.floor(i / 250)}.${1 + (i % 250)}`;
}

/**
 * `apiPorts`: the API nodes' ports on 127.0.0.1, or caller i's; `groupOf`:
 * caller i's group, whose latencies are also summarised on their own.
 */
export async function runFastPhase(
  apiPorts: readonly number[] | ((i: number) => readonly number[]),
  callers: number,
  block: number,
  arrivalPerSecond: number,
  cpuNow: () => Promise<CpuTimes>,
  groupOf: (i: number) => string = () => 'all',
): Promise<FastPhase> {
  const targets: Target[] = Array.from({ length: callers }, (_, i) => ({ address: callerAddress(block, i), scanType: 'fast' }));
  const listeners = await startTruthListeners(targets);
  const truth = snapshotTruth(targets);
  const latencies: number[] = [];
  const startLatencies: number[] = [];
  const wrong: string[] = [];
  const groups = new Map<string, { latencies: number[]; startLatencies: number[]; lastAt: number }>();

  /** One caller: POST, then GET polls on alternating nodes until the scan ends; a wrong result is noted. */
  const follow = async (target: Target, i: number): Promise<void> => {
    const connections = (typeof apiPorts === 'function' ? apiPorts(i) : apiPorts).map((port) => new CallerConnection(port, target.address));
    const name = groupOf(i);
    if (!groups.has(name)) groups.set(name, { latencies: [], startLatencies: [], lastAt: 0 });
    const group = groups.get(name)!;
    const request = async (n: number, method: string): Promise<HttpResponse> => {
      const started = performance.now();
      const response = await connections[n % connections.length]!.request(method, '/v1/fast', { timeoutMs: CALLER_TIMEOUT_MS });
      const ms = performance.now() - started;
      for (const into of [latencies, group.latencies]) into.push(ms);
      if (method === 'POST') for (const into of [startLatencies, group.startLatencies]) into.push(ms);
      group.lastAt = performance.now();
      return response;
    };
    try {
      const post = await request(i, 'POST');
      if (post.status !== 200) return void wrong.push(`${target.address}: POST ${post.status} ${post.body}`);
      const deadline = performance.now() + CALLER_TIMEOUT_MS;
      for (let poll = 1; ; poll++) {
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        const body = JSON.parse((await request(i + poll, 'GET')).body) as { status: string };
        if (body.status !== 'queued' && body.status !== 'running') {
          const why = wrongness(target, body, [truth.get(keyOf(target))!]);
          if (why !== null) wrong.push(`${target.address}: ${why}`);
          return;
        }
        if (performance.now() > deadline) return void wrong.push(`${target.address}: still ${body.status}`);
      }
    } finally {
      for (const connection of connections) connection.close();
    }
  };

  const started = performance.now();
  const cpuBefore = await cpuNow();
  try {
    await Promise.all(
      targets.map(async (target, i) => {
        if (Number.isFinite(arrivalPerSecond)) await new Promise((resolve) => setTimeout(resolve, (i * 1000) / arrivalPerSecond));
        await follow(target, i);
      }),
    );
  } finally {
    await listeners.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = await cpuNow();
  const cpu = Object.fromEntries(Object.entries(cpuAfter).map(([group, total]) => [group, total - cpuBefore[group]!]));
  return {
    callers,
    arrivalPerSecond,
    seconds,
    exact: callers - wrong.length,
    wrong,
    latency: summarise(latencies),
    startLatency: summarise(startLatencies),
    cpu,
    byGroup: Object.fromEntries(
      [...groups].map(([name, group]) => [
        name,
        { latency: summarise(group.latencies), startLatency: summarise(group.startLatencies), seconds: (group.lastAt - started) / 1000 },
      ]),
    ),
  };
}
