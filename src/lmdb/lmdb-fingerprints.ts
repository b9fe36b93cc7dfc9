// Fingerprints of past scans in the embedded lmdb: one entry per
// (scan type, ip) with the time it is kept until; reads treat an entry
// past its time as gone, and the expiry sweep deletes it.
import type { RootDatabase } from 'lmdb';

import type { ScanType } from '../api/scan-type.js';
import type { Fingerprint } from '../exposure/fingerprint.js';
import type { FingerprintStore } from '../exposure/fingerprint-store.js';
import type { Clock } from '../model/clock.js';
import { deleteWhere } from './delete-where.js';
import { openDurableLmdb } from './durable-lmdb.js';

interface Kept {
  fingerprint: Fingerprint;
  /** Unix ms. */
  until: number;
}

const keyOf = (scanType: ScanType, ip: string): string => `${scanType}|${ip}`;

/** Fingerprints kept in lmdb; open them with {@link openLmdbFingerprints}. */
export class LmdbFingerprints implements FingerprintStore {
  constructor(
    private readonly db: RootDatabase<Kept, string>,
    private readonly clock: Clock,
  ) {}

  async get(ip: string, scanType: ScanType): Promise<Fingerprint | null> {
    const kept = this.db.get(keyOf(scanType, ip));
    return kept === undefined || kept.until <= this.clock.now() ? null : kept.fingerprint;
  }

  async put(ip: string, scanType: ScanType, fingerprint: Fingerprint, until: number): Promise<void> {
    await this.db.put(keyOf(scanType, ip), { fingerprint, until });
  }

  deleteExpired(now: number): Promise<number> {
    return deleteWhere(this.db, (kept) => kept.until <= now);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/** Opens (creating it if needed) the fingerprints at `<dataDir>/fingerprints.lmdb`. */
export async function openLmdbFingerprints(dataDir: string, clock: Clock): Promise<LmdbFingerprints> {
  return new LmdbFingerprints(await openDurableLmdb<Kept>(dataDir, 'fingerprints.lmdb'), clock);
}
