// A scanner node: takes chunk jobs from its region's queue, scans each
// chunk with the native scanner (seeded with the timing the chunk before
// it learned), records it (once, with its progress event), queues the
// scan's next chunk, and asks for the finish when the last one is in.
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import { SCAN_PROFILES } from '../api/scan-type.js';
import type { Scanner } from '../native/scanner.js';
import { CHUNK_ATTEMPTS, type ChunkDispatch, type ChunkJob, chunkQueueName } from './chunk-jobs.js';
import { QUEUE_PREFIX } from './redis-connection.js';
import type { RedisScanProgress } from './redis-scan-progress.js';
import { STALL_SETTINGS } from './stall-settings.js';

export interface ScannerNodeOptions {
  region: string;
  scanner: Pick<Scanner, 'scan'>;
  progress: RedisScanProgress;
  dispatch: ChunkDispatch;
  /** Chunks scanned at once by this node. */
  concurrency: number;
  logger: Logger;
}

export class ScannerNode {
  private readonly worker: Worker<ChunkJob>;
  private running = 0;

  constructor(
    private readonly options: ScannerNodeOptions,
    connection: Redis,
  ) {
    const run = async (job: Job<ChunkJob>): Promise<void> => {
      this.running++;
      try {
        await this.run(job.data);
      } finally {
        this.running--;
      }
    };
    this.worker = new Worker<ChunkJob>(chunkQueueName(options.region), run, {
      connection,
      prefix: QUEUE_PREFIX,
      concurrency: options.concurrency,
      ...STALL_SETTINGS,
    });
    this.worker.on('failed', (job, error) => this.failed(job, error));
    this.worker.on('error', (error) => options.logger.warn({ err: error }, 'chunk worker error'));
  }

  /** Chunk jobs running here now. */
  get jobsInHand(): number {
    return this.running;
  }

  /** Stops taking jobs and waits for those running (a killed node's are run again elsewhere). */
  close(): Promise<void> {
    return this.worker.close();
  }

  private async run(job: ChunkJob): Promise<void> {
    const { scanner, progress, dispatch, region, logger } = this.options;
    const remaining = job.deadline - Date.now();
    if (remaining <= 0) return; // past its budget: the sweep finishes the scan with what it has
    await progress.running(job.scanId);
    const { ports, chunkSize } = SCAN_PROFILES[job.scanType];
    const chunkPorts = ports.slice(job.index * chunkSize, (job.index + 1) * chunkSize);
    const handle = scanner.scan({ ip: job.ip, ports: chunkPorts, chunkSize: chunkPorts.length, budgetMs: remaining, timing: job.timing });
    const summary = await handle.done;
    const findings = { open: summary.open, filtered: summary.filtered, complete: summary.status === 'complete' };
    const recorded = await progress.recordChunk(job.scanId, job.index, findings);
    logger.debug({ event: 'chunk_scanned', scanId: job.scanId, index: job.index, outcome: recorded.outcome, durationMs: summary.durationMs }, 'chunk scanned');
    if (recorded.outcome === 'ended') return;
    await dispatch.next(region, job, recorded.total, summary.timing);
    if (recorded.done === recorded.total) await dispatch.finish({ scanId: job.scanId, ip: job.ip, scanType: job.scanType });
  }

  /** A chunk that failed every attempt: the scan ends now with what it has, not at its deadline. */
  private failed(job: Job<ChunkJob> | undefined, error: Error): void {
    const { logger, dispatch } = this.options;
    logger.warn({ err: error, scanId: job?.data.scanId, index: job?.data.index, attempt: job?.attemptsMade }, 'chunk failed');
    if (job === undefined || job.attemptsMade < CHUNK_ATTEMPTS) return;
    const { scanId, ip, scanType } = job.data;
    dispatch
      .finish({ scanId, ip, scanType })
      .catch((finishError: unknown) => logger.error({ err: finishError, scanId: job.data.scanId }, 'could not queue the finish'));
  }
}
