// Where accepted scans wait for a scanner: one line per scan type, a bounded
// number running at once. In one process the line is in memory; a cluster
// puts a networked queue behind the same interface.

import type { ScanType } from '../api/scan-type.js';
import type { ScanRecord } from '../model/scan-record.js';

/** Runs one scan; settles once the scan has ended and its end is published. */
export type ScanWorker = (record: ScanRecord) => Promise<void>;

export interface ScanQueue {
  /** Puts `record` at the back of its type's line. */
  enqueue(record: ScanRecord): void;
  /** Scans ahead of `record` in its line; 0 when it is next or running. */
  position(record: ScanRecord): number;
  /** Scans of `scanType` running now. */
  running(scanType: ScanType): number;
  /** Scans of `scanType` allowed to run at once. */
  concurrency(scanType: ScanType): number;
  /** Hands each scan to `worker` when its turn comes (the scanner role). */
  process(worker: ScanWorker): void;
  /** Takes every scan still waiting out of line (shutdown). */
  takeWaiting(): ScanRecord[];
}
