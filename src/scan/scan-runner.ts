// The code a scanner process runs for each scan it is handed: the scanner
// sweeps, each chunk's open ports pass the facts stage, chunks become
// progress events, and the end is settled by the finisher (its duration
// from startedAt to its end, the facts stage included). A deep scan's
// chunks are saved as they are verified, and a chunk counts (in the
// record, in events) only once it is saved: a scan a crash cut short
// resumes after a restart from what it had shown, scanning only the chunks
// not yet verified.
import type { Logger } from 'pino';

import type { Port } from '../api/port.js';
import { SCAN_PROFILES, type ScanType } from '../api/scan-type.js';
import type { ExamineOpenPorts } from '../exposure/examine-open-ports.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../model/clock.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { ScanChunk, Scanner } from '../native/scanner.js';
import type { PtrLookup } from './ptr-lookup.js';
import type { RecordWriter } from './record-writer.js';
import { progressBody } from './result-view.js';
import { applySavedChunks, type SavedChunk, type ScanCheckpoints } from './scan-checkpoints.js';
import type { ScanEvents } from './scan-events.js';
import type { ScanFinisher, ScanOutcome } from './scan-finisher.js';

export interface ScanRunnerOptions {
  scanner: Pick<Scanner, 'scan'>;
  /** The udp scan's sweep (src/udp/udp-scanner.ts): its ports come with their facts and risk. */
  udpScanner: Pick<Scanner, 'scan'>;
  writer: RecordWriter;
  events: ScanEvents;
  finisher: ScanFinisher;
  /** Time budget per scan type; past it a scan ends `incomplete`. */
  budgetMs: Readonly<Record<ScanType, number>>;
  clock: Clock;
  logger: Logger;
  /** Reverse DNS for ptr_record; none configured: always null. */
  lookupPtr?: PtrLookup;
  /** Where deep scans save their chunks; none: nothing is saved, and a resumed scan starts over. */
  checkpoints?: ScanCheckpoints;
  /** The facts stage each chunk's open ports pass through before they count; none: facts are off. */
  examine?: ExamineOpenPorts;
  /** Counts each scan's wait in line and the ports it probed; absent: nothing counted. */
  metrics?: Pick<Metrics, 'queueWaited' | 'probed'>;
}

/**
 * Scan types whose chunks are saved. A fast scan's whole run costs less
 * than its four durable writes would; after a restart it runs again.
 */
const CHECKPOINTED: ReadonlySet<ScanType> = new Set(['deep']);

/** A scan this runner is running. */
interface Run {
  record: ScanRecord;
  /** The scan's chunk index of each chunk the scanner reports, when it scans only some of them (a resume). */
  indexes: readonly number[] | null;
  checkpoints: ScanCheckpoints | undefined;
  /** The address's PTR name, being looked up. */
  ptr: Promise<string | null>;
  /** Settles when every chunk reported so far is saved and counted, in the order they came. */
  counted: Promise<void>;
  /** Chunks reported and not yet counted. */
  uncounted: number;
}

export class ScanRunner {
  private readonly cancels = new Map<string, () => void>();
  /** Set by cancelAll: a scan still reading its saved chunks then does not start. */
  private stopped = false;

  constructor(private readonly options: ScanRunnerOptions) {}

  /**
   * Runs the scan of `record` to its end; never rejects (a failure ends the
   * scan `failed`). A record that ran before (`startedAt` set: a previous
   * process left it running) resumes: its saved chunks count, the others are
   * scanned in what is left of its budget from `startedAt`.
   */
  readonly run = async (record: ScanRecord): Promise<void> => {
    const { writer, clock, logger, lookupPtr } = this.options;
    const profile = SCAN_PROFILES[record.scanType];
    const checkpoints = CHECKPOINTED.has(record.scanType) ? this.options.checkpoints : undefined;
    const resumed = record.startedAt !== null;
    const saved = resumed ? await this.load(record, checkpoints) : new Map<number, SavedChunk>();
    if (resumed) {
      applySavedChunks(record, saved);
    } else {
      record.startedAt = clock.now();
      this.options.metrics?.queueWaited(record.scanType, record.startedAt - record.queuedAt);
    }
    record.status = 'running';
    if (!resumed) writer.write(record).catch((error: unknown) => logger.error({ err: error, scanId: record.id }, 'could not store scan state'));
    const ptr = lookupPtr?.(record.ip) ?? Promise.resolve(null);
    const left = Array.from({ length: profile.totalChunks }, (_, index) => index).filter((index) => !saved.has(index));
    const budgetLeftMs = this.options.budgetMs[record.scanType] - (clock.now() - record.startedAt!);
    if (resumed) {
      logger.info(
        {
          event: 'scan_resumed',
          scanId: record.id,
          ip: record.ip,
          scanType: record.scanType,
          chunksComplete: record.chunksComplete,
          chunksLeft: left.length,
          budgetLeftMs: Math.max(0, budgetLeftMs),
        },
        budgetLeftMs > 0 || left.length === 0 ? 'scan resumed after a restart' : 'scan resumed after a restart, past its budget: it ends incomplete',
      );
    }
    this.options.events.progress(record.id, () => progressBody(record));
    let outcome: ScanOutcome;
    if (left.length === 0) {
      outcome = { summary: { status: 'complete' } };
    } else if (budgetLeftMs <= 0) {
      outcome = { summary: { status: 'incomplete' } };
    } else {
      const run: Run = { record, indexes: saved.size === 0 ? null : left, checkpoints, ptr, counted: Promise.resolve(), uncounted: 0 };
      outcome = await this.sweep(run, Math.ceil(budgetLeftMs));
      await run.counted;
    }
    await this.options.finisher.finish(record, outcome, await ptr);
    checkpoints?.forget(record.id).catch((error: unknown) => logger.warn({ err: error, scanId: record.id }, 'could not forget scan checkpoints'));
  };

  /** Cancels every scan running here; each then ends `failed` (`interrupted`). */
  cancelAll(): void {
    this.stopped = true;
    for (const cancel of this.cancels.values()) cancel();
  }

  /** Scans the chunks of `run` not yet verified; how that went. */
  private async sweep(run: Run, budgetMs: number): Promise<ScanOutcome> {
    const { record, indexes } = run;
    const { ports, chunkSize } = SCAN_PROFILES[record.scanType];
    // A resume scans the chunks left, in order: only the last chunk of a scan is short, so each keeps its ports.
    const request = { ip: record.ip, ports: indexes === null ? ports : indexes.flatMap((index) => chunkPorts(record.scanType, index)), chunkSize, budgetMs };
    if (this.stopped) return { failReason: 'interrupted' };
    try {
      const scanner = record.scanType === 'udp' ? this.options.udpScanner : this.options.scanner;
      const handle = scanner.scan(request, (chunk) => this.onChunk(run, chunk));
      this.cancels.set(record.id, handle.cancel);
      return await handle.done.then(
        (summary) => {
          this.options.metrics?.probed(record.scanType, summary.portsScanned);
          return { summary };
        },
        (error: unknown) => ({ error }),
      );
    } catch (error) {
      return { error };
    } finally {
      this.cancels.delete(record.id);
    }
  }

  private onChunk(run: Run, chunk: ScanChunk): void {
    const { record, checkpoints } = run;
    const index = run.indexes === null ? chunk.index : run.indexes[chunk.index]!;
    const found: SavedChunk = { open: chunk.open, filtered: chunk.filtered };
    if (chunk.etaMs !== null) record.pathDoneAt = this.options.clock.now() + chunk.etaMs;
    const examined = this.examine(run, found.open);
    const saved =
      chunk.complete && checkpoints !== undefined ? (examined ?? Promise.resolve()).then(() => this.save(checkpoints, record, index, found)) : examined;
    const count = (): void => {
      if (chunk.complete) record.chunksComplete++;
      record.portsOpen.push(...found.open);
      record.portsFiltered.push(...found.filtered);
      this.options.events.progress(record.id, () => progressBody(record, chunk.complete ? index : undefined, this.options.clock.now()));
    };
    if (saved === undefined && run.uncounted === 0) return count(); // nothing to wait for: counted at once
    run.uncounted++;
    run.counted = run.counted.then(async () => {
      await saved;
      run.uncounted--;
      count();
    });
  }

  /** Runs the facts stage on a chunk's open ports, when it is on and there are any; settles when done (it never rejects). */
  private examine(run: Run, open: Port[]): Promise<void> | undefined {
    const { examine } = this.options;
    // A udp scan's ports come with the facts of its own probes.
    if (examine === undefined || open.length === 0 || run.record.scanType === 'udp') return undefined;
    return run.ptr.then((ptr) => examine(run.record.ip, open, ptr));
  }

  /** Saves a verified chunk; a failure is logged, and the scan goes on (a restart would scan that chunk again). */
  private save(checkpoints: ScanCheckpoints, record: ScanRecord, index: number, chunk: SavedChunk): Promise<void> {
    return checkpoints.save(record.id, index, chunk).catch((error: unknown) => {
      this.options.logger.error({ err: error, scanId: record.id, index }, 'could not save scan progress');
    });
  }

  /** The chunks `record` saved before a restart; none when it saves none, or they cannot be read. */
  private async load(record: ScanRecord, checkpoints: ScanCheckpoints | undefined): Promise<Map<number, SavedChunk>> {
    try {
      return (await checkpoints?.load(record.id)) ?? new Map();
    } catch (error) {
      this.options.logger.error({ err: error, scanId: record.id }, 'could not read scan progress; scanning it again from the start');
      return new Map();
    }
  }
}

/** The ports of chunk `index` of a `scanType` scan. */
export function chunkPorts(scanType: ScanType, index: number): readonly number[] {
  const { ports, chunkSize } = SCAN_PROFILES[scanType];
  return ports.slice(index * chunkSize, (index + 1) * chunkSize);
}
