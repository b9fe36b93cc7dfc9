// Where fingerprints of past scans are kept between scans (lmdb in one
// process, Redis in a cluster), each for the retention the operator set.
import type { ScanType } from '../api/scan-type.js';
import type { Fingerprint } from './fingerprint.js';

export interface FingerprintStore {
  /** The fingerprint kept of `ip`'s last complete `scanType` scan; null when none is, or it is past its time. */
  get(ip: string, scanType: ScanType): Promise<Fingerprint | null>;
  /** Keeps `fingerprint` as `ip`'s last `scanType` scan, replacing the one before, until `until` (Unix ms). */
  put(ip: string, scanType: ScanType, fingerprint: Fingerprint, until: number): Promise<void>;
  /** Deletes the fingerprints past their time; how many. */
  deleteExpired(now: number): Promise<number>;
}
