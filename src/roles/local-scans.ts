// Scans in a single process (`selfscan serve`): the lifecycle over the
// memory book, and the scanner role, sharing an in-memory queue and event
// bus; ends are stored in the store before they are announced.
import { SCAN_TYPES, type ScanType } from '../api/scan-type.js';
import type { ScanExposure } from '../exposure/scan-exposure.js';
import { InProcessScanEvents } from '../memory/in-process-scan-events.js';
import { LocalScanEnds } from '../memory/local-scan-ends.js';
import { MemoryScanBook } from '../memory/memory-scan-book.js';
import { MemoryScanQueue } from '../memory/memory-scan-queue.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ScanRecord } from '../model/scan-record.js';
import { RecordWriter } from '../scan/record-writer.js';
import type { ResultStore } from '../scan/result-store.js';
import type { ScanEvents } from '../scan/scan-events.js';
import { ScanFinisher, type ScanFinisherOptions } from '../scan/scan-finisher.js';
import { ScanLifecycle } from '../scan/scan-lifecycle.js';
import { type ScanningOptions, startScanning } from '../scan/scanning.js';
import type { Scans } from '../scan/scans.js';

export interface LocalScansOptions extends Omit<ScanningOptions, 'queue' | 'events' | 'writer' | 'finisher'> {
  store: ResultStore;
  /** Told of each scan's end; a failure to make its webhooks due is logged (nothing here would retry it). */
  webhooks: ScanFinisherOptions['webhooks'];
  /** Scans of each type running at once; the rest wait in line. */
  concurrency: Readonly<Record<ScanType, number>>;
  /** The finisher's rating and change tracking; absent: neither. */
  exposure?: ScanExposure;
  /** Counts scans (started, joined, waiting, ended) and probes; absent: nothing counted. */
  metrics?: Metrics;
}

export interface LocalScans {
  service: Scans;
  events: ScanEvents;
  /** Takes up a scan a previous process left queued or running (scan-recovery.ts): in flight again, and back in line. */
  resume(record: ScanRecord): void;
  /** Scans in flight (queued or running). */
  inFlight(): number;
  /**
   * Stops taking scans, lets those in flight finish for up to `graceMs`,
   * then ends the rest as failed (`interrupted`), so every watcher gets its
   * terminal event and every record is final.
   */
  drain(graceMs: number): Promise<void>;
}

export function openLocalScans(options: LocalScansOptions): LocalScans {
  const { store, clock, logger } = options;
  const queue = new MemoryScanQueue(options.concurrency);
  const events = new InProcessScanEvents(logger);
  const writer = new RecordWriter(store);
  const book = new MemoryScanBook(store, writer, events);
  const { metrics } = options;
  const service = new ScanLifecycle({ book, work: queue, clock, logger, metrics });
  metrics?.gaugeBy('selfscan_queue_depth', 'Scans waiting in line to run, by queue (scan type)', 'queue', () =>
    Object.fromEntries(SCAN_TYPES.map((scanType) => [scanType, queue.waiting(scanType)])),
  );
  const webhooks = {
    scanFinished: (record: ScanRecord) =>
      options.webhooks.scanFinished(record).catch((error: unknown) => logger.error({ err: error, scanId: record.id }, 'could not queue webhooks')),
  };
  const finisher = new ScanFinisher({ ends: new LocalScanEnds(writer, events, logger), store, webhooks, exposure: options.exposure, clock, logger, metrics });
  const scanning = startScanning({ ...options, queue, events, writer, finisher });
  return {
    service,
    events,
    resume: (record) => {
      book.resume(record);
      queue.enqueue(record);
    },
    inFlight: () => book.inFlightCount,
    drain: async (graceMs) => {
      book.stopAccepting();
      await book.idle(graceMs);
      await scanning.interrupt();
      await book.idle();
    },
  };
}
