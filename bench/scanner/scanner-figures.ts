// Formatting for the scanner benchmark's figures: times, rates, run lists
// and goal verdicts, so every line reads the same way.
import { NmapStopped } from '../../support/nmap.js';
import { median } from '../lib/machine.js';
import type { ToolRun } from './scan-runners.js';

/** A run that finished, or the reason it did not (and how long it ran when it was stopped for taking too long). */
export type Attempt = ToolRun | { error: string; stoppedAfterMs?: number };

export const isRun = (a: Attempt): a is ToolRun => !('error' in a);

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function verdict(met: boolean): string {
  return met ? 'met' : 'NOT met';
}

/** Median whole-process time of the runs that finished (NaN if none did). */
export function medianMs(attempts: readonly Attempt[]): number {
  const done = attempts.filter(isRun);
  return done.length === 0 ? Number.NaN : median(done.map((r) => r.ms));
}

/** Median time of the scan call alone (a run's innerMs) over the runs that report one (NaN if none). */
export function medianInnerMs(attempts: readonly Attempt[]): number {
  const inner = attempts.filter(isRun).flatMap((r) => (r.innerMs === undefined ? [] : [r.innerMs]));
  return inner.length === 0 ? Number.NaN : median(inner);
}

/** True when every run finished with no wrong state. */
export function allExact(attempts: readonly Attempt[]): boolean {
  return attempts.length > 0 && attempts.every((a) => isRun(a) && a.wrong === 0);
}

/** "median 1.23 s (runs 1.20, 1.23, 1.30 s); wrong states 0, 0, 3 (e.g. …)" plus failures and notes. */
export function describeRuns(attempts: readonly Attempt[]): string {
  const done = attempts.filter(isRun);
  const parts: string[] = [];
  if (done.length > 0) {
    parts.push(`median ${seconds(medianMs(attempts))} (runs ${done.map((r) => (r.ms / 1000).toFixed(2)).join(', ')} s)`);
    const inner = medianInnerMs(attempts);
    if (!Number.isNaN(inner)) parts.push(`the scan call alone median ${seconds(inner)}`);
    const wrong = `wrong states ${done.map((r) => count(r.wrong)).join(', ')}`;
    const example = done.find((r) => r.wrong > 0)?.examples.join(', ');
    parts.push(example === undefined ? wrong : `${wrong} (e.g. ${example})`);
  }
  const failed = attempts.filter((a): a is { error: string } => !isRun(a));
  if (failed.length > 0) parts.push(`${failed.length} run(s) failed: ${firstLine(failed[0]!.error)}`);
  const notes = [...new Set(done.map((r) => r.note).filter((n) => n !== ''))];
  if (notes.length > 0) parts.push(notes.join('; '));
  return parts.join('; ');
}

/** Runs `fn`, turning a failure into an Attempt that says why. */
export async function attempt(fn: () => Promise<ToolRun>): Promise<Attempt> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof NmapStopped) return { error: err.message, stoppedAfterMs: err.afterMs };
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * `ms` ÷ the anchor's median, or, when every anchor run was stopped for
 * taking too long, "< " `ms` ÷ the time it was given.
 */
export function ratioTo(ms: number, anchor: readonly Attempt[]): string {
  if (anchor.some(isRun)) return (ms / medianMs(anchor)).toFixed(2);
  const stopped = anchor.flatMap((a) => ('stoppedAfterMs' in a && a.stoppedAfterMs !== undefined ? [a.stoppedAfterMs] : []));
  return stopped.length > 0 ? `< ${(ms / Math.min(...stopped)).toFixed(3)}` : 'n/a';
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
