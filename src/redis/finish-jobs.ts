// A cluster scan's finish, as BullMQ jobs that any API node works: the
// job reads the scan's recorded chunks, looks up the PTR and hands the
// scan to the finisher (scan/scan-finisher.ts), which ends it in one
// atomic step (redis-scan-progress.ts) and makes its webhooks due. A job
// redone after a node died finds the scan ended and only makes the
// webhooks due again: nothing happens twice. A finish asked because the
// last chunk is in waits while chunks, or the scan's record, are missing:
// ioredis sends an ask in flight at a failover again to the promoted
// replica, which may lack the last chunks (their jobs run again there) or
// the whole start (its API node writes it again: replica-wait.ts).
import { DelayedError, type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';

import type { ScanRecord } from '../model/scan-record.js';
import type { PtrLookup } from '../scan/ptr-lookup.js';
import type { ScanFinisher, ScanOutcome } from '../scan/scan-finisher.js';
import { DEADLINE_GRACE_MS, type FinishJob } from './chunk-jobs.js';
import { FINISH_QUEUE, QUEUE_PREFIX } from './redis-keys.js';
import type { RedisScanProgress, ScanSnapshot } from './redis-scan-progress.js';
import { STALL_SETTINGS } from './stall-settings.js';

export interface FinishJobsOptions {
  progress: RedisScanProgress;
  finisher: ScanFinisher;
  lookupPtr?: PtrLookup;
}

/** Finish jobs run at once on one API node. */
const CONCURRENCY = 16;
/** How often a finish waiting for chunks looks again. */
const RECHECK_MS = 1000;

export class FinishJobs {
  constructor(private readonly options: FinishJobsOptions) {}

  /** Ends scan `job.scanId` with what its chunks found, unless it has ended; 'waiting' while it is too early to (tooEarly). */
  async run(job: FinishJob): Promise<'done' | 'waiting'> {
    const { progress, finisher, lookupPtr } = this.options;
    const snapshot = await progress.snapshot(job.scanId, job.ip, job.scanType, job.regionsAsked);
    if (await this.tooEarly(job, snapshot)) return 'waiting';
    if (snapshot === null) return 'done'; // its record is gone or another scan's: nothing is owed
    const { record, chunks, ended } = snapshot;
    const ptr = ended ? null : await (lookupPtr?.(record.ip) ?? Promise.resolve(null));
    await finisher.finish(record, outcomeOf(record, chunks.size), ptr);
    return 'done';
  }

  /** A `chunks-in` finish, before the scan's deadline, on a primary that lacks some of its chunks, or its record while no other scan took its place. */
  private async tooEarly(job: FinishJob, snapshot: ScanSnapshot | null): Promise<boolean> {
    if (job.reason !== 'chunks-in' || Date.now() >= (job.deadline ?? 0) + DEADLINE_GRACE_MS) return false;
    if (snapshot !== null) return !snapshot.ended && snapshot.chunks.size < snapshot.record.totalChunks;
    const inFlight = await this.options.progress.inFlight(job.ip, job.scanType, job.regionsAsked);
    return inFlight === null || inFlight === job.scanId;
  }

  /** Takes finish jobs from the queue until closed; one waiting for chunks goes back to the queue, delayed (an attempt not spent). */
  work(connection: Redis): Worker<FinishJob> {
    const take = async (job: Job<FinishJob>, token?: string): Promise<void> => {
      if ((await this.run(job.data)) === 'done') return;
      await job.moveToDelayed(Date.now() + RECHECK_MS, token);
      throw new DelayedError();
    };
    return new Worker<FinishJob>(FINISH_QUEUE, take, {
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
