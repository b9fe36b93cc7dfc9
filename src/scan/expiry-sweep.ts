// Results last 24 hours: a timer deletes expired records from the store
// now and then (reads already treat them as gone). Both deployments run
// it; Redis deletes each record at its expiry itself, so a cluster's sweep
// finds nothing left.
import type { Logger } from 'pino';

import type { Clock } from '../model/clock.js';
import type { ResultStore } from './result-store.js';

/** How often expired results are deleted from the store. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

/** Deletes expired records every `intervalMs`; returns a function that stops it. */
export function startExpirySweep(store: ResultStore, clock: Clock, logger: Logger, intervalMs = SWEEP_INTERVAL_MS): () => void {
  const timer = setInterval(() => {
    store.deleteExpired(clock.now()).then(
      (removed) => {
        if (removed > 0) logger.info({ event: 'results_expired', removed }, 'expired results deleted');
      },
      (error: unknown) => logger.error({ err: error }, 'expiry sweep failed'),
    );
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
