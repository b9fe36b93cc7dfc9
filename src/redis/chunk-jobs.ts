// A scan's chunks as BullMQ jobs in its region's queue (a multi-region
// scan's in each region's, each region's jobs numbered after the region
// before it: vantage-views.ts): a deep scan's 64
// chunks a job each, a fast scan's 4 chunks (32 ports) one job, as its
// ports cost less than a job's round trips. At most `window` jobs of one
// scan are queued or running at once across the cluster: the first ones
// are queued when the scan starts, and each job done queues the one
// `window` places after it, carrying the timing it learned of the target. Job ids never contain the IP (`:` and IPv6 break them)
// and are fixed per chunk, so queueing one twice is a no-op.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

import { SCAN_PROFILES, type ScanType } from '../api/scan-type.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { LearnedTiming } from '../native/scan-request.js';
import { chunkQueueName, FINISH_QUEUE, QUEUE_PREFIX } from './redis-keys.js';

export interface ChunkJob {
  scanId: string;
  ip: string;
  scanType: ScanType;
  /** The job's place in the scan: its chunks are index × CHUNKS_PER_JOB onwards. */
  index: number;
  /** A multi-region scan's key beside (ip, scan type). */
  regionsAsked?: string;
  /** Chunks of the scan in flight at once. */
  window: number;
  /** When the scan's time budget runs out (Unix ms). */
  deadline: number;
  /** What the chunk before it learned of the target, if any. */
  timing?: LearnedTiming;
}

/**
 * Why a scan is to be finished. `chunks-in`: a chunk's record counted the
 * last one in; the finish checks that on the primary it runs on (one
 * promoted in a failover may lack chunks, their jobs then run again) and
 * waits for them until the deadline. `chunk-failed`: a chunk failed every
 * attempt; `deadline`: past its budget (the sweep). Both end the scan with
 * what it has.
 */
export type FinishReason = 'chunks-in' | 'chunk-failed' | 'deadline';

export interface FinishJob {
  scanId: string;
  ip: string;
  scanType: ScanType;
  regionsAsked?: string;
  /** When the scan's time budget runs out (Unix ms); absent in a job queued by an older node: finished at once. */
  deadline?: number;
  reason?: FinishReason;
}

/** Past its budget, a scan's last chunk may still be recording: a finish waits this much longer for it. */
export const DEADLINE_GRACE_MS = 15_000;

/** The finish job of the scan `job` is part of. */
export function finishOf({ scanId, ip, scanType, regionsAsked, deadline }: ChunkJob, reason: FinishReason): FinishJob {
  return { scanId, ip, scanType, regionsAsked, deadline, reason };
}

/** Chunks (of SCAN_PROFILES) one job scans, by scan type. */
export const CHUNKS_PER_JOB: Readonly<Record<ScanType, number>> = { fast: SCAN_PROFILES.fast.totalChunks, deep: 1, udp: 1 };

/** Jobs of a scan of `scanType`. */
export const jobsOf = (scanType: ScanType): number => SCAN_PROFILES[scanType].totalChunks / CHUNKS_PER_JOB[scanType];

/** Job `index` of a scan as the job `local` of its region, whose jobs end before `end`. */
export function jobInRegion(scanType: ScanType, index: number): { local: number; end: number } {
  const jobs = jobsOf(scanType);
  const local = index % jobs;
  return { local, end: index - local + jobs };
}

/** The ports job `index` of a `scanType` scan scans. */
export function jobPorts(scanType: ScanType, index: number): readonly number[] {
  const { ports, chunkSize } = SCAN_PROFILES[scanType];
  const size = chunkSize * CHUNKS_PER_JOB[scanType];
  const { local } = jobInRegion(scanType, index);
  return ports.slice(local * size, (local + 1) * size);
}

const chunkJobId = (scanId: string, index: number): string => `${scanId}-${index}`;
/** A finish that ends the scan with what it has gets an id of its own: a `chunks-in` one waiting for chunks must not dedupe it. */
const finishJobId = (scanId: string, reason: FinishReason | undefined): string =>
  reason === 'chunk-failed' ? `finish-${scanId}-${reason}` : `finish-${scanId}`;

/** Attempts of a chunk whose scan failed (not a stall: a stalled chunk is always run again). */
export const CHUNK_ATTEMPTS = 3;
/** Finished jobs are kept this long, so their ids still dedupe a second queueing. */
const KEEP = { age: 24 * 60 * 60 };

export class ChunkDispatch {
  private readonly queues = new Map<string, Queue>();
  private readonly finishQueue: Queue;

  constructor(private readonly connection: () => Redis) {
    this.finishQueue = new Queue(FINISH_QUEUE, { connection: connection(), prefix: QUEUE_PREFIX });
  }

  /** Queues the first `window` chunks of a scan just started, in each of its regions. */
  async first(record: ScanRecord, window: number, deadline: number): Promise<void> {
    const regions = record.regions ?? (record.region === undefined ? [] : [record.region]);
    if (regions.length === 0) throw new Error(`scan ${record.id} was not placed in a region`);
    const { id: scanId, ip, scanType, regionsAsked } = record;
    const perRegion = jobsOf(scanType);
    const count = Math.min(window, perRegion);
    await Promise.all(
      regions.map((region, k) => {
        const jobs = Array.from({ length: count }, (_, i): ChunkJob => ({ scanId, ip, scanType, index: k * perRegion + i, window, deadline, regionsAsked }));
        return this.queue(region).addBulk(jobs.map((data) => ({ name: 'chunk', data, opts: this.chunkOptions(data) })));
      }),
    );
  }

  /** Queues the job `window` places after `done`, if the scan has one, with the timing `done` learned. */
  async next(region: string, done: ChunkJob, timing: LearnedTiming | undefined): Promise<void> {
    const index = done.index + done.window;
    if (index >= jobInRegion(done.scanType, done.index).end) return;
    const data: ChunkJob = { ...done, index, ...(timing === undefined ? {} : { timing }) };
    await this.queue(region).add('chunk', data, this.chunkOptions(data));
  }

  /** Asks an API node to finish the scan (once for each kind of reason, however often asked). */
  async finish(job: FinishJob): Promise<void> {
    await this.finishQueue.add('finish', job, {
      jobId: finishJobId(job.scanId, job.reason),
      attempts: 1000,
      backoff: { type: 'fixed', delay: 1000 },
      removeOnComplete: KEEP,
      removeOnFail: KEEP,
    });
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values(), this.finishQueue].map((queue) => queue.close()));
  }

  /** Chunk jobs waiting in `region`'s queue (not yet taken by a scanner node). */
  waiting(region: string): Promise<number> {
    return this.queue(region).getWaitingCount();
  }

  private queue(region: string): Queue {
    let queue = this.queues.get(region);
    if (queue === undefined) this.queues.set(region, (queue = new Queue(chunkQueueName(region), { connection: this.connection(), prefix: QUEUE_PREFIX })));
    return queue;
  }

  private chunkOptions(data: ChunkJob) {
    return {
      jobId: chunkJobId(data.scanId, data.index),
      attempts: CHUNK_ATTEMPTS,
      backoff: { type: 'fixed', delay: 500 },
      removeOnComplete: KEEP,
      removeOnFail: KEEP,
    };
  }
}
