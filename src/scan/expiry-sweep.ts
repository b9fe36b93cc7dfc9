// Results last 24 hours, fingerprints as long as the operator keeps them:
// a timer deletes expired entries now and then (reads already treat them
// as gone). Both deployments run it; Redis deletes each key at its expiry
// itself, so a cluster's sweep finds nothing left.
import type { Logger } from 'pino';

import type { Clock } from '../model/clock.js';

/** How often expired entries are deleted. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** What keeps entries until a time: results, fingerprints. */
export interface Expiring {
  /** Deletes the entries past their time; how many. */
  deleteExpired(now: number): Promise<number>;
}

/**
 * Deletes expired entries of each of `kept` (by the name its log line
 * gives it, e.g. `results`) every `intervalMs`; returns a function that stops it.
 */
export function startExpirySweep(kept: Readonly<Record<string, Expiring>>, clock: Clock, logger: Logger, intervalMs = SWEEP_INTERVAL_MS): () => void {
  const timer = setInterval(() => {
    for (const [what, store] of Object.entries(kept)) {
      store.deleteExpired(clock.now()).then(
        (removed) => {
          if (removed > 0) logger.info({ event: `${what}_expired`, removed }, `expired ${what} deleted`);
        },
        (error: unknown) => logger.error({ err: error, what }, 'expiry sweep failed'),
      );
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
