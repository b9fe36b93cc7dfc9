// An in-memory ResultStore for unit tests of logic above the store.
import type { ScanType } from '../../src/api/scan-type.js';
import type { ScanRecord } from '../../src/model/scan-record.js';
import type { ResultStore } from '../../src/scan/result-store.js';

export class MemoryStore implements ResultStore {
  readonly records = new Map<string, ScanRecord>();
  puts = 0;

  async get(ip: string, scanType: ScanType): Promise<ScanRecord | null> {
    const record = this.records.get(`${scanType}|${ip}`);
    return record === undefined ? null : structuredClone(record);
  }

  async put(record: ScanRecord): Promise<void> {
    this.puts++;
    this.records.set(`${record.scanType}|${record.ip}`, structuredClone(record));
  }

  async unfinished(): Promise<ScanRecord[]> {
    return [...this.records.values()].filter((r) => r.status === 'queued' || r.status === 'running').map((r) => structuredClone(r));
  }

  async deleteExpired(now: number): Promise<number> {
    let removed = 0;
    for (const [key, record] of this.records) {
      if (record.expiresAt !== null && record.expiresAt <= now) {
        this.records.delete(key);
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {}
}
