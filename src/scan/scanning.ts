// The scanner role: takes scans from the queue and runs them on the
// scanner, one runner per process. Only this role needs the native addon.
import type { Logger } from 'pino';

import type { ScanType } from '../api/scan-type.js';
import type { Clock } from '../model/clock.js';
import type { Scanner } from '../native/scanner.js';
import type { PtrLookup } from './ptr-lookup.js';
import type { RecordWriter } from './record-writer.js';
import type { ScanEvents } from './scan-events.js';
import { ScanFinisher } from './scan-finisher.js';
import type { ScanQueue } from './scan-queue.js';
import { ScanRunner } from './scan-runner.js';

export interface ScanningOptions {
  scanner: Pick<Scanner, 'scan'>;
  queue: ScanQueue;
  events: ScanEvents;
  writer: RecordWriter;
  /** Time budget per scan type; past it a scan ends `incomplete`. */
  budgetMs: Readonly<Record<ScanType, number>>;
  clock: Clock;
  logger: Logger;
  lookupPtr?: PtrLookup;
}

export interface Scanning {
  /**
   * Shutdown: scans still waiting end `failed` (`interrupted`) and running
   * ones are cancelled (they then end the same way).
   */
  interrupt(): Promise<void>;
}

export function startScanning(options: ScanningOptions): Scanning {
  const finisher = new ScanFinisher(options);
  const runner = new ScanRunner({ ...options, finisher });
  options.queue.process(runner.run);
  return {
    interrupt: async () => {
      const waiting = options.queue.takeWaiting();
      runner.cancelAll();
      await Promise.all(waiting.map((record) => finisher.finish(record, { failReason: 'interrupted' }, null)));
    },
  };
}
