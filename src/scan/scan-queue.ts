// The line of one process where accepted scans wait for its scanner role:
// one line per scan type, a bounded number running at once. The lifecycle
// dispatches to it (scan-work.ts); the scanning role takes from it
// (scanning.ts). A cluster's work goes to chunk jobs instead
// (redis/chunk-work.ts).

import type { ScanRecord } from '../model/scan-record.js';
import type { ScanWork } from './scan-work.js';

/** Runs one scan; settles once the scan has ended and its end is published. */
export type ScanWorker = (record: ScanRecord) => Promise<void>;

export interface ScanQueue extends ScanWork {
  /** Puts `record` at the back of its type's line. */
  enqueue(record: ScanRecord): void;
  /** Hands each scan to `worker` when its turn comes (the scanner role). */
  process(worker: ScanWorker): void;
  /** Takes every scan still waiting out of line (shutdown). */
  takeWaiting(): ScanRecord[];
}
