// A cluster scan's finish, as BullMQ jobs that any API node works: the
// job reads the scan's recorded chunks, looks up the PTR and hands the
// scan to the finisher (scan/scan-finisher.ts), which ends it in one
// atomic step (redis-scan-progress.ts) and makes its webhooks due. A job
// redone after a node died finds the scan ended and only makes the
// webhooks due again: nothing happens twice.
import { Worker } from 'bullmq';
import type { Redis } from 'ioredis';

import type { ScanRecord } from '../model/scan-record.js';
import type { PtrLookup } from '../scan/ptr-lookup.js';
import type { ScanFinisher, ScanOutcome } from '../scan/scan-finisher.js';
import type { FinishJob } from './chunk-jobs.js';
import { FINISH_QUEUE, QUEUE_PREFIX } from './redis-keys.js';
import type { RedisScanProgress } from './redis-scan-progress.js';
import { STALL_SETTINGS } from './stall-settings.js';

export interface FinishJobsOptions {
  progress: RedisScanProgress;
  finisher: ScanFinisher;
  lookupPtr?: PtrLookup;
}

/** Finish jobs run at once on one API node. */
const CONCURRENCY = 16;

export class FinishJobs {
  constructor(private readonly options: FinishJobsOptions) {}

  /** Ends scan `job.scanId` with what its chunks found, unless it has ended. */
  async run(job: FinishJob): Promise<void> {
    const { progress, finisher, lookupPtr } = this.options;
    const snapshot = await progress.snapshot(job.scanId, job.ip, job.scanType, job.regionsAsked);
    if (snapshot === null) return; // its record is gone or another scan's: nothing is owed
    const { record, chunks, ended } = snapshot;
    const ptr = ended ? null : await (lookupPtr?.(record.ip) ?? Promise.resolve(null));
    await finisher.finish(record, outcomeOf(record, chunks.size), ptr);
  }

  /** Takes finish jobs from the queue until closed. */
  work(connection: Redis): Worker<FinishJob> {
    return new Worker<FinishJob>(FINISH_QUEUE, (job) => this.run(job.data), {
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
