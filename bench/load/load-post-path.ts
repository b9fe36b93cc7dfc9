// Where a scan start's time goes, as its caller saw it: each caller's POST
// (its first request, on a new connection) split at the server's handler by
// the server's own log line of it (`time` when the answer was written, `ms`
// spent in the handler). Before the handler: the connection waiting to be
// accepted and its request to be read; after it: the answer reaching the
// caller. Both clocks are this machine's wall clock, to the millisecond.
import { type LatencySample, type LatencySummary, summarise } from '../lib/load-metrics.js';

export interface PostPath {
  /** From the caller's send to the server's handler starting on it. */
  beforeHandler: LatencySummary;
  /** In the server's handler (its log's `ms`). */
  inHandler: LatencySummary;
  /** From the answer written to the caller having read it. */
  toCaller: LatencySummary;
}

/**
 * The split of every POST in `samples` that the server logged (`lines`: its
 * log over the phase), by the group `groupOf` puts its caller in.
 */
export function postPaths(
  samples: readonly LatencySample[],
  lines: readonly Record<string, unknown>[],
  groupOf: (caller: string) => string,
): Map<string, PostPath> {
  const logged = new Map<string, { time: number; ms: number }>();
  for (const line of lines) {
    if (line.event === 'request' && line.method === 'POST' && String(line.path).startsWith('/v1/') && typeof line.ms === 'number') {
      logged.set(String(line.ip), { time: Number(line.time), ms: line.ms });
    }
  }
  const groups = new Map<string, { before: number[]; inside: number[]; after: number[] }>();
  for (const sample of samples) {
    const line = sample.kind === 'POST' && sample.caller !== undefined ? logged.get(sample.caller) : undefined;
    if (line === undefined) continue;
    const key = groupOf(sample.caller!);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { before: [], inside: [], after: [] }));
    const sentAt = performance.timeOrigin + sample.startedAt;
    group.before.push(Math.max(0, line.time - line.ms - sentAt));
    group.inside.push(line.ms);
    group.after.push(Math.max(0, sentAt + sample.ms - line.time));
  }
  return new Map(
    [...groups].map(([key, { before, inside, after }]) => [
      key,
      { beforeHandler: summarise(before), inHandler: summarise(inside), toCaller: summarise(after) },
    ]),
  );
}
