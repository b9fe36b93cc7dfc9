// Figures of the scanner benchmark's engines part: a tool's runs with
// their CPU time beside the wall time, in scanner-figures.ts's style.
import { median } from '../lib/machine.js';
import { type Attempt, count, describeRuns, isRun, seconds } from './scanner-figures.js';

/** CPU times of the runs that finished and report one. */
function cpuTimes(attempts: readonly Attempt[]): number[] {
  return attempts.flatMap((a) => (isRun(a) && a.cpuMs !== undefined ? [a.cpuMs] : []));
}

/** Median CPU time of the runs that finished and report one (NaN if none). */
export function medianCpuMs(attempts: readonly Attempt[]): number {
  const cpu = cpuTimes(attempts);
  return cpu.length === 0 ? Number.NaN : median(cpu);
}

/** describeRuns' line and "CPU (user + sys) median 0.12 s (runs 0.12, 0.13 s)". */
export function describeRunsWithCpu(attempts: readonly Attempt[]): string {
  const cpu = cpuTimes(attempts);
  if (cpu.length === 0) return describeRuns(attempts);
  return `${describeRuns(attempts)}; CPU (user + sys) median ${seconds(median(cpu))} (runs ${cpu.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s)`;
}

/** `a` ÷ `b` to two places, for ratios of medians. */
export function ratio(a: number, b: number): string {
  return (a / b).toFixed(2);
}

/** One progress line of a run: "round 2 masscan: 2.16 s, CPU 0.98 s, wrong 0" or why it failed. */
export function progressLine(round: number, label: string, a: Attempt): string {
  if (!isRun(a)) return `  round ${round} ${label}: failed: ${a.error.split('\n')[0]}`;
  const cpu = a.cpuMs === undefined ? '' : `, CPU ${seconds(a.cpuMs)}`;
  return `  round ${round} ${label}: ${seconds(a.ms)}${cpu}, wrong ${count(a.wrong)}`;
}
