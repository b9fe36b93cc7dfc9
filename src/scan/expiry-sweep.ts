// Results last 24 hours: a timer deletes expired records from the store
// now and then (reads already treat them as gone).
import type { Logger } from 'pino';

import type { Clock } from '../model/clock.js';
import type { ResultStore } from '../store/result-store.js';

/** Deletes expired records every `intervalMs`; returns a function that stops it. */
export function startExpirySweep(store: ResultStore, clock: Clock, logger: Logger, intervalMs: number): () => void {
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
