// Scans in a single process (`selfscan serve`): the service and the scanner
// role share an in-memory queue and event bus.
import type { ScanType } from '../api/scan-type.js';
import type { ResultStore } from '../store/result-store.js';
import { InProcessScanEvents } from './in-process-scan-events.js';
import { MemoryScanQueue } from './memory-scan-queue.js';
import { RecordWriter } from './record-writer.js';
import type { ScanEvents } from './scan-events.js';
import { ScanService } from './scan-service.js';
import { type ScanningOptions, startScanning } from './scanning.js';

export interface LocalScansOptions extends Omit<ScanningOptions, 'queue' | 'events' | 'writer'> {
  store: ResultStore;
  /** Scans of each type running at once; the rest wait in line. */
  concurrency: Readonly<Record<ScanType, number>>;
}

export interface LocalScans {
  service: ScanService;
  events: ScanEvents;
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
  const service = new ScanService({ store, writer, queue, events, clock, logger });
  const scanning = startScanning({ ...options, queue, events, writer });
  return {
    service,
    events,
    drain: async (graceMs) => {
      service.stopAccepting();
      await service.idle(graceMs);
      await scanning.interrupt();
      await service.idle();
    },
  };
}
