// A scanner node: takes chunk jobs from its region's queue, scans each
// chunk with the native scanner (a udp scan's with the UDP sweep) (seeded with the timing the chunk before
// it learned), passes its open ports through the facts stage, records it
// (once, with its progress event), queues the scan's next chunk, and asks
// for the finish when the last one is in.
import { type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import { SCAN_PROFILES } from '../api/scan-type.js';
import type { ExamineOpenPorts } from '../exposure/examine-open-ports.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ScanChunk, Scanner } from '../native/scanner.js';
import type { PtrLookup } from '../scan/ptr-lookup.js';
import { CHUNK_ATTEMPTS, CHUNKS_PER_JOB, type ChunkDispatch, type ChunkJob, finishOf, jobInRegion, jobPorts } from './chunk-jobs.js';
import { chunkQueueName, QUEUE_PREFIX } from './redis-keys.js';
import type { ChunkRecorded, RedisScanProgress } from './redis-scan-progress.js';
import { STALL_SETTINGS } from './stall-settings.js';

export interface ScannerNodeOptions {
  region: string;
  scanner: Pick<Scanner, 'scan'>;
  /** The udp scan's sweep (src/udp/udp-scanner.ts): its ports come with their facts and risk. */
  udpScanner: Pick<Scanner, 'scan'>;
  progress: RedisScanProgress;
  dispatch: ChunkDispatch;
  /** Chunks scanned at once by this node. */
  concurrency: number;
  /** The facts stage each chunk's open ports pass through before they are recorded; none: facts are off. */
  examine?: ExamineOpenPorts;
  /** Reverse DNS, for the facts stage's TLS server name. */
  lookupPtr?: PtrLookup;
  logger: Logger;
  /** Counts each job's wait in line and the ports it probed; absent: nothing counted. */
  metrics?: Pick<Metrics, 'queueWaited' | 'probed'>;
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
      options.metrics?.queueWaited(job.data.scanType, (job.processedOn ?? Date.now()) - job.timestamp);
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
    const { local } = jobInRegion(job.scanType, job.index);
    if (local < job.window) await progress.running(job.scanId); // a later job starts only after a first one ran
    // Each chunk is recorded as the scanner reports it, numbered within the whole scan.
    const first = job.index * CHUNKS_PER_JOB[job.scanType];
    const records: Promise<ChunkRecorded>[] = [];
    let ptr: Promise<string | null> | undefined; // looked up once per job, when a chunk has open ports
    const onChunk = (chunk: ScanChunk): void => {
      const findings = { open: chunk.open, filtered: chunk.filtered, complete: chunk.complete, at: Date.now() };
      const { examine, lookupPtr } = this.options;
      let examined = Promise.resolve();
      if (examine !== undefined && chunk.open.length > 0 && job.scanType !== 'udp') {
        ptr ??= lookupPtr?.(job.ip) ?? Promise.resolve(null);
        examined = ptr.then((name) => examine(job.ip, chunk.open, name));
      }
      const record = examined.then(() => progress.recordChunk(job.scanId, first + chunk.index, findings));
      // Awaited below once the sweep ends; a record that fails before then (Redis lost) must not count as unhandled and end the process.
      record.catch(() => {});
      records.push(record);
    };
    const { chunkSize } = SCAN_PROFILES[job.scanType];
    const handle = (job.scanType === 'udp' ? this.options.udpScanner : scanner).scan(
      { ip: job.ip, ports: jobPorts(job.scanType, job.index), chunkSize, budgetMs: remaining, timing: job.timing },
      onChunk,
    );
    const summary = await handle.done;
    this.options.metrics?.probed(job.scanType, summary.portsScanned);
    const recorded = await Promise.all(records);
    const ended = recorded.some((r) => r.outcome === 'ended');
    logger.debug({ event: 'chunk_scanned', scanId: job.scanId, index: job.index, ended, durationMs: summary.durationMs }, 'chunks scanned');
    if (ended) return;
    await dispatch.next(region, job, summary.timing);
    if (recorded.some((r) => r.done === r.total)) await dispatch.finish(finishOf(job, 'chunks-in'));
  }

  /** A chunk that failed every attempt: the scan ends now with what it has, not at its deadline. */
  private failed(job: Job<ChunkJob> | undefined, error: Error): void {
    const { logger, dispatch } = this.options;
    logger.warn({ err: error, scanId: job?.data.scanId, index: job?.data.index, attempt: job?.attemptsMade }, 'chunk failed');
    if (job === undefined || job.attemptsMade < CHUNK_ATTEMPTS) return;
    dispatch
      .finish(finishOf(job.data, 'chunk-failed'))
      .catch((finishError: unknown) => logger.error({ err: finishError, scanId: job.data.scanId }, 'could not queue the finish'));
  }
}
