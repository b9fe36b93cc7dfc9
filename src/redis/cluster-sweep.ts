// What no event triggers, checked by every API node every SWEEP_MS (each
// action is idempotent, so nodes may overlap): a scan past its budget is
// finished with what it has (`incomplete`, or `failed` if nothing ran), and
// a scan still queued after REQUEUE_AFTER_MS gets its first chunks queued
// again, in case the API node that started it died before queueing them.
import type { Logger } from 'pino';

import type { ScanType } from '../api/scan-type.js';
import type { Clock } from '../model/clock.js';
import type { ResultStore } from '../scan/result-store.js';
import { type ChunkDispatch, DEADLINE_GRACE_MS } from './chunk-jobs.js';
import type { RedisScanProgress } from './redis-scan-progress.js';

const SWEEP_MS = 5000;
const REQUEUE_AFTER_MS = 10_000;

export interface ClusterSweepOptions {
  store: ResultStore;
  progress: RedisScanProgress;
  dispatch: ChunkDispatch;
  window: number;
  budgetMs: Readonly<Record<ScanType, number>>;
  clock: Clock;
  logger: Logger;
}

export async function sweepOnce(options: ClusterSweepOptions): Promise<void> {
  const { store, progress, dispatch, window, budgetMs, clock } = options;
  const now = clock.now();
  const unfinished = await store.unfinished();
  const queued = unfinished.filter((record) => now - record.queuedAt > REQUEUE_AFTER_MS);
  const statuses = await progress.statuses(queued.map((record) => record.id));
  for (const [i, record] of queued.entries()) {
    const deadline = record.queuedAt + budgetMs[record.scanType];
    const { id: scanId, ip, scanType, regionsAsked } = record;
    if (now > deadline + DEADLINE_GRACE_MS) await dispatch.finish({ scanId, ip, scanType, regionsAsked, deadline, reason: 'deadline' });
    else if (statuses[i] === 'queued') await dispatch.first(record, window, deadline);
  }
}

/** Sweeps every SWEEP_MS until stopped. */
export function startClusterSweep(options: ClusterSweepOptions): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepOnce(options)
      .catch((error: unknown) => options.logger.warn({ err: error }, 'cluster sweep failed'))
      .finally(() => (running = false));
  }, SWEEP_MS);
  return () => clearInterval(timer);
}
