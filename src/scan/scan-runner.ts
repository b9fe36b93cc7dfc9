// The code a scanner process runs for each scan it is handed: the scanner
// sweeps, chunks become progress events, and the end is settled by the
// finisher. The scanner collects the ports; the record shows its lists.
import type { Logger } from 'pino';

import { SCAN_PROFILES, type ScanType } from '../api/scan-type.js';
import type { Clock } from '../model/clock.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { ScanChunk, Scanner } from '../native/scanner.js';
import type { PtrLookup } from './ptr-lookup.js';
import type { RecordWriter } from './record-writer.js';
import { progressBody } from './result-view.js';
import type { ScanEvents } from './scan-events.js';
import type { ScanFinisher, ScanOutcome } from './scan-finisher.js';

export interface ScanRunnerOptions {
  scanner: Pick<Scanner, 'scan'>;
  writer: RecordWriter;
  events: ScanEvents;
  finisher: ScanFinisher;
  /** Time budget per scan type; past it a scan ends `incomplete`. */
  budgetMs: Readonly<Record<ScanType, number>>;
  clock: Clock;
  logger: Logger;
  /** Reverse DNS for ptr_record; none configured: always null. */
  lookupPtr?: PtrLookup;
}

export class ScanRunner {
  private readonly cancels = new Map<string, () => void>();

  constructor(private readonly options: ScanRunnerOptions) {}

  /** Runs the scan of `record` to its end; never rejects (a failure ends the scan `failed`). */
  readonly run = async (record: ScanRecord): Promise<void> => {
    const { scanner, writer, events, clock, logger, lookupPtr } = this.options;
    const profile = SCAN_PROFILES[record.scanType];
    record.status = 'running';
    record.startedAt = clock.now();
    writer.write(record).catch((error: unknown) => logger.error({ err: error, scanId: record.id }, 'could not store scan state'));
    const ptr = lookupPtr?.(record.ip) ?? Promise.resolve(null);
    events.progress(record.id, () => progressBody(record));
    let outcome: ScanOutcome;
    try {
      const handle = scanner.scan(
        { ip: record.ip, ports: profile.ports, chunkSize: profile.chunkSize, budgetMs: this.options.budgetMs[record.scanType] },
        (chunk) => this.onChunk(record, chunk),
      );
      // The scanner's lists grow as chunks arrive: the record shows them, not a copy.
      record.portsOpen = handle.found.open;
      record.portsFiltered = handle.found.filtered;
      this.cancels.set(record.id, handle.cancel);
      outcome = await handle.done.then(
        (summary) => ({ summary }),
        (error: unknown) => ({ error }),
      );
    } catch (error) {
      outcome = { error };
    }
    this.cancels.delete(record.id);
    await this.options.finisher.finish(record, outcome, await ptr);
  };

  /** Cancels every scan running here; each then ends `failed` (`interrupted`). */
  cancelAll(): void {
    for (const cancel of this.cancels.values()) cancel();
  }

  private onChunk(record: ScanRecord, chunk: ScanChunk): void {
    if (chunk.complete) record.chunksComplete++;
    this.options.events.progress(record.id, () => progressBody(record, chunk.complete ? chunk.index : undefined));
  }
}
