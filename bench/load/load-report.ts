// The printed (and recorded) lines of bench/load/load.ts.

import type { ScanType } from '../../src/api/scan-type.js';
import { type LatencySummary, type LoopDelay, percentile } from '../lib/load-metrics.js';
import type { Flow } from './load-callers.js';
import type { PhaseResult } from './load-phase.js';

export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ms = (n: number): string => (Number.isNaN(n) ? '–' : `${fmt(n, n < 100 ? 1 : 0)} ms`);
export const seconds = (n: number): string => (Number.isNaN(n) ? '–' : `${fmt(n / 1000, n < 10_000 ? 2 : 1)} s`);
const mib = (kib: number): string => `${fmt(kib / 1024, 1)} MiB`;
const loopDelay = (delay: LoopDelay): string => `p50 ${ms(delay.p50)}, p99 ${ms(delay.p99)}, max ${ms(delay.max)}`;

function latency(summary: LatencySummary): string {
  return `p50 ${ms(summary.p50)}, p99 ${ms(summary.p99)}, max ${ms(summary.max)} (${fmt(summary.count)})`;
}

function times(values: readonly number[]): string {
  return `median ${seconds(percentile(values, 0.5))}, p99 ${seconds(percentile(values, 0.99))}, max ${seconds(percentile(values, 1))} (${values.length})`;
}

function countsBy<T extends string>(values: readonly T[]): string {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].map(([value, count]) => `${value} ${fmt(count)}`).join(', ');
}

/** The lines of one phase; sub-lines start with two spaces. */
export function phaseLines(result: PhaseResult, pollMs: number): string[] {
  const { spec, outcomes } = result;
  const total = outcomes.length;
  const types = countsBy(outcomes.map((o) => o.plan.scanType));
  const flows = countsBy<Flow>(outcomes.map((o) => o.plan.flow));
  const lines = [
    `${spec.label}: ${fmt(total)} callers (${types}; flows ${flows}), each from its own address 127.${spec.block}.x.y, ${spec.rampMs > 0 ? `started evenly over ${fmt(spec.rampMs)} ms` : 'all started at once'}; listeners on ${result.listening} callers' addresses (${fmt(result.expectedOpen)} open ports expected over all results)`,
    `  scans completed: ${fmt(result.completed)} of ${fmt(total)} in ${seconds(result.activeMs)}: ${fmt(result.completed / (result.activeMs / 1000), 1)} scans/s`,
    `  API latency while scans ran (every POST, GET poll, v2 stream open to its response head, MCP tool call): ${latency(result.latency.headline)}`,
  ];
  const kinds = [...result.latency.byKind].filter(([, summary]) => summary.count > 0);
  lines.push(
    `  by kind: ${kinds.map(([kind, summary]) => `${kind} ${latency(summary)}`).join('; ')}${kinds.some(([kind]) => kind === 'MCP connect') ? ' (MCP connect: the handshake, three HTTP requests as the SDK client sends them, not in the figure above)' : ''}${kinds.some(([kind]) => kind === 'TCP connect') ? " (TCP connect: a caller's connection established, part of its first request's time above or of its MCP connect; a SYN the listen queue dropped costs 1 s)" : ''}`,
  );
  for (const type of ['fast', 'deep'] as ScanType[]) {
    const values = result.toComplete.get(type)!;
    if (values.length === 0) continue;
    const byFlow = [...result.toCompleteByFlow].filter(([key]) => key.startsWith(`${type} `));
    lines.push(
      `  ${type}: request to complete as each caller saw it (v1/MCP polls every ${pollMs} ms, v2 event, webhook arrival): ${times(values)}; by flow: ${byFlow.map(([key, v]) => `${key.slice(type.length + 1)} median ${seconds(percentile(v, 0.5))}, max ${seconds(percentile(v, 1))}`).join('; ')}; scan run time (duration_ms, without the queue wait): ${times(result.scanDurations.get(type)!)}`,
    );
  }
  const handling = [...result.serverRequestMs].map(([key, summary]) => `${key} ${latency(summary)}`);
  const queued = [...result.serverQueuedToFinished].map(([type, summary]) => `${type} p50 ${seconds(summary.p50)}, p99 ${seconds(summary.p99)}`);
  lines.push(`  the server's own log: handling time (request to response written) ${handling.join('; ')}; scan_queued to scan_finished ${queued.join('; ')}`);
  if (result.postPaths.size > 0) {
    const splits = [...result.postPaths].map(
      ([flow, path]) =>
        `${flow} (${fmt(path.inHandler.count)}): before the handler ${latency(path.beforeHandler)}; in it ${latency(path.inHandler)}; the answer to the caller ${latency(path.toCaller)}`,
    );
    lines.push(
      `  a POST's time, split by the server's log of it (each a caller's first request, on a new connection; before the handler: accepting the connection and reading the request): ${splits.join('; ')}`,
    );
  }
  lines.push(
    `  server: peak RSS ${mib(result.peaks.rssKiB)} and peak open fds ${fmt(result.peaks.fds)} (/proc every 250 ms; VmHWM since the server started ${mib(result.highWaterKiB)}), CPU ${fmt(result.serverCpuSeconds, 1)} s over the phase (${fmt(result.serverCpuSeconds / (result.activeMs / 1000), 2)} cores), its event loop's delay ${loopDelay(result.serverLoopDelayMs)} (its /metrics: about how long a turn of its loop took); the harness itself ${fmt(result.harnessCpuSeconds, 1)} s CPU on the same 2 cores and its event loop's delay ${loopDelay(result.harnessLoopDelayMs)} (at most that late in reading an answer), the rest of the machine (other processes, interrupts) ${fmt(Math.max(0, result.otherCpuSeconds), 1)} s; load average ${fmt(result.loadAverage, 2)} at the start; connections dropped by a full listen queue (kernel ListenOverflows, system-wide; each costs its caller a 1 s SYN retransmission) ${fmt(result.listenOverflows)}`,
    `  errors ${result.errors.length}, wrong results ${result.wrong.length}, webhook deliveries missing ${result.webhooks.missing} of ${result.webhooks.expected} (must all be zero; extra deliveries ${result.webhooks.extra}${result.truthChanged > 0 ? `; truth changed during the run for ${result.truthChanged} callers` : ''})`,
  );
  return lines;
}

/** The first few distinct problems of a phase, for stderr. */
export function problemLines(result: PhaseResult, limit = 10): string[] {
  const all = [...result.errors.map((e) => `error: ${e}`), ...result.wrong.map((w) => `wrong: ${w}`)];
  return [...all.slice(0, limit), ...(all.length > limit ? [`… and ${all.length - limit} more`] : [])];
}

/** Markdown list items from printed lines. */
export function markdown(lines: readonly string[]): string[] {
  return lines.map((line) => (line.startsWith('  ') ? `  - ${line.trim()}` : `- ${line}`));
}
