// The embedded ResultStore: one lmdb environment in the data dir, one entry
// per (scan type, ip).
import type { RootDatabase } from 'lmdb';

import type { ScanType } from '../api/scan-type.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { ResultStore } from '../scan/result-store.js';
import { deleteWhere } from './delete-where.js';
import { openDurableLmdb } from './durable-lmdb.js';

function recordKey(scanType: ScanType, ip: string): string {
  return `${scanType}|${ip}`;
}

/** Scan records kept in lmdb; open it with {@link openLmdbStore}. */
export class LmdbResultStore implements ResultStore {
  constructor(private readonly db: RootDatabase<ScanRecord, string>) {}

  async get(ip: string, scanType: ScanType): Promise<ScanRecord | null> {
    return this.db.get(recordKey(scanType, ip)) ?? null;
  }

  async put(record: ScanRecord): Promise<void> {
    await this.db.put(recordKey(record.scanType, record.ip), record);
  }

  async unfinished(): Promise<ScanRecord[]> {
    const records: ScanRecord[] = [];
    for (const { value } of this.db.getRange()) {
      if (value.status === 'queued' || value.status === 'running') records.push(value);
    }
    return records;
  }

  deleteExpired(now: number): Promise<number> {
    return deleteWhere(this.db, (record) => record.expiresAt !== null && record.expiresAt <= now);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

/**
 * Opens (creating it if needed) the store at `<dataDir>/results.lmdb`.
 * `put` resolves only once the record is synced to disk.
 */
export async function openLmdbStore(dataDir: string): Promise<LmdbResultStore> {
  return new LmdbResultStore(await openDurableLmdb<ScanRecord>(dataDir, 'results.lmdb'));
}
