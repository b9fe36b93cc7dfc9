// Where scan records live: lmdb in the data dir of one process
// (lmdb/lmdb-store.ts), Redis for every node of a cluster
// (redis/redis-result-store.ts).
import type { ScanType } from '../api/scan-type.js';
import type { ScanRecord } from '../model/scan-record.js';

export interface ResultStore {
  /** The record of (ip, type), whatever its status, or null. */
  /** `regionsAsked`: a multi-region scan's key (a cluster's store only). */
  get(ip: string, scanType: ScanType, regionsAsked?: string): Promise<ScanRecord | null>;
  /** Writes the record durably (flushed to disk when the promise resolves). */
  put(record: ScanRecord): Promise<void>;
  /** Records still `queued` or `running`: what a crash left behind. */
  unfinished(): Promise<ScanRecord[]>;
  /** Deletes records whose `expiresAt` is at or before `now` (Unix ms); returns how many. */
  deleteExpired(now: number): Promise<number>;
  close(): Promise<void>;
}
