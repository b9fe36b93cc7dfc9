// Where the scans in flight and the finished results are kept, as the scan
// lifecycle (scan-lifecycle.ts) sees them: start or join the one scan of
// an (ip, scan type), find it, read what a poll shows, and follow its
// events. One process keeps them in memory over its lmdb store
// (memory/memory-scan-book.ts); a cluster keeps them in Redis, where a
// start is one atomic step and events come numbered over Pub/Sub
// (redis/redis-scan-book.ts).
import type { ScanType } from '../api/scan-type.js';
import type { ScanAdmit } from '../limits/rate/scan-admit.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { FinalEntry } from './final-results.js';
import type { InitialEvent, ScanListener } from './scan-events.js';
import type { Watch } from './scans.js';

/** What a poll of (ip, scan type) shows: the record of a scan in flight, or a finished scan's body and expiry. */
export type KnownScan = { inFlight: ScanRecord } | { final: FinalEntry };

/**
 * The events a new watcher gets first, from the scan's state as read and
 * `sequence`: every event sent before has an id up to it (one process,
 * which numbers only the events of watched scans, gives the next id).
 */
export type FirstEvents = (record: ScanRecord, sequence: number) => InitialEvent[];

/**
 * `regionsAsked` (a multi-region scan's key beside ip and scan type) reaches
 * only a cluster's book: a single process refuses such scans before.
 */
export interface ScanBook {
  /**
   * Records `record` (queued) as the scan in flight for its (ip, scan type)
   * and resolves null once it is durably recorded; or, when a scan is in
   * flight for it already, resolves that scan's id (joining costs nothing).
   * `admit` is charged only for a new scan; its refusal is thrown, and
   * nothing is recorded.
   */
  begin(record: ScanRecord, admit?: ScanAdmit): Promise<string | null>;
  /** The id of the scan in flight for (ip, scanType), or null. */
  inFlight(ip: string, scanType: ScanType, regionsAsked?: string): Promise<string | null>;
  /** What a poll shows when it is known without a read; undefined when it must be read. */
  peek(ip: string, scanType: ScanType, regionsAsked?: string): KnownScan | null | undefined;
  /** What a poll of (ip, scanType) shows; null when nothing is known. */
  read(ip: string, scanType: ScanType, regionsAsked?: string): Promise<KnownScan | null>;
  /**
   * Attaches `listener` to scan `scanId` of (ip, scanType): it hears the
   * events `first` makes, then every later one. Null when the scan has ended
   * or is unknown.
   */
  follow(scanId: string, ip: string, scanType: ScanType, listener: ScanListener, first: FirstEvents, regionsAsked?: string): Promise<Watch | null>;
  /** Listens to the ends of scans this process hears of (a cluster node: none it is not told of). */
  onEnded(listener: (record: ScanRecord) => void): void;
}
