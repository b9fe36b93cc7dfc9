// Ends a cluster scan, on whichever API node takes its finish job: merges
// the recorded chunks, looks up the PTR, stores the final record with its
// 24 h expiry, clears the in-flight mark and publishes the end (one atomic
// step), then queues the webhooks owed. Every step may run again (a node
// died midway and the job was redelivered) without doing anything twice.
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { Clock } from '../model/clock.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { PtrLookup } from '../scan/ptr-lookup.js';
import { finalBody } from '../scan/result-view.js';
import { logScanFinished, type ScanOutcome, settleRecord } from '../scan/scan-finisher.js';
import type { ResultStore } from '../store/result-store.js';
import type { FinishJob } from './chunk-jobs.js';
import { FINISH_QUEUE, QUEUE_PREFIX } from './redis-keys.js';
import type { RedisScanProgress } from './redis-scan-progress.js';
import { STALL_SETTINGS } from './stall-settings.js';

export interface ClusterFinisherOptions {
  progress: RedisScanProgress;
  store: ResultStore;
  webhooks: { scanFinished(record: ScanRecord): Promise<void> };
  lookupPtr?: PtrLookup;
  clock: Clock;
  logger: Logger;
}

/** Finish jobs run at once on one API node. */
const CONCURRENCY = 16;

export class ClusterFinisher {
  constructor(private readonly options: ClusterFinisherOptions) {}

  /** Ends scan `job.scanId` with what its chunks found, unless it has ended. */
  async finish(job: FinishJob): Promise<void> {
    const { progress, store, webhooks, lookupPtr, clock, logger } = this.options;
    const snapshot = await progress.snapshot(job.scanId, job.ip, job.scanType);
    if (snapshot === null) return; // its record is gone or another scan's: nothing is owed
    if (snapshot.ended) return webhooks.scanFinished(snapshot.record);
    const { record, chunks } = snapshot;
    const ptr = await (lookupPtr?.(record.ip) ?? Promise.resolve(null));
    settleRecord(record, outcomeOf(record, chunks.size), ptr, clock.now(), logger);
    if (await progress.end(record, finalBody(record))) {
      logScanFinished(logger, record);
      return webhooks.scanFinished(record);
    }
    // Another node ended it meanwhile: its record is the one owed.
    const stored = await store.get(record.ip, record.scanType);
    if (stored !== null && stored.id === record.id) await webhooks.scanFinished(stored);
  }

  /** Takes finish jobs from the queue until closed. */
  work(connection: Redis): Worker<FinishJob> {
    return new Worker<FinishJob>(FINISH_QUEUE, (job) => this.finish(job.data), {
      connection,
      prefix: QUEUE_PREFIX,
      concurrency: CONCURRENCY,
      ...STALL_SETTINGS,
    });
  }
}

/** Every chunk recorded and verified: complete; some: incomplete; none ran: failed. */
function outcomeOf(record: ScanRecord, recorded: number): ScanOutcome {
  if (recorded === 0) return { failReason: 'interrupted' };
  return { summary: { status: record.chunksComplete === record.totalChunks ? 'complete' : 'incomplete' } };
}
