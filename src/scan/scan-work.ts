// Where a scan just started goes to be run, as the scan lifecycle sees it:
// its placement, its dispatch, and its place in line for the estimates.
// One process puts it in its in-memory line (memory/memory-scan-queue.ts);
// a cluster picks a region and queues its first chunk jobs there
// (redis/chunk-work.ts).

import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanPlace, ScanRecord } from '../model/scan-record.js';

export interface ScanWork {
  /** Throws `invalid_regions` when `regionsAsked` names a region unknown here (one process: any). */
  checkRegions(regionsAsked: RegionsAsked): Promise<void>;
  /** Where a new scan will run: the region, or the regions asked for, in a cluster; nothing in one process. */
  place(regionsAsked?: RegionsAsked): Promise<ScanPlace>;
  /** Hands the scan just recorded to whoever runs it. */
  dispatch(record: ScanRecord): Promise<void>;
  /** Scans ahead of `record` in its line; 0 when it is next, running, or the line is not known here. */
  position(record: ScanRecord): number;
  /** Scans of `scanType` running now, as far as known here. */
  running(scanType: ScanType): number;
  /** Scans of `scanType` run at once, as far as known here. */
  concurrency(scanType: ScanType): number;
}
