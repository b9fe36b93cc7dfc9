// Finished results kept in memory for GET: small ones, most recently used
// last, so the hot path of polling answers without the store. A finished
// body is the same object on every read until it changes (the HTTP layer
// caches its encoding by identity).
import type { ScanResultFinal } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { EndedScan } from './scan-events.js';

/** Results kept per scan type, and how large each may be. */
const ENTRIES_PER_TYPE = 2048;
const MAX_PORTS = 256;

export interface FinalEntry {
  body: ScanResultFinal;
  /** Unix ms; null: never. */
  expiresAt: number | null;
}

export class FinalResults {
  private readonly entries: Record<ScanType, Map<string, FinalEntry>> = { fast: new Map(), deep: new Map(), udp: new Map() };

  /** The entry of (ip, scanType), whether or not it expired; undefined when none is kept. */
  get(ip: string, scanType: ScanType): FinalEntry | undefined {
    return this.entries[scanType].get(ip);
  }

  /** Keeps `scan`'s body if it is small; returns its entry either way. */
  remember({ record, body }: EndedScan): FinalEntry {
    const entries = this.entries[record.scanType];
    const entry = { body, expiresAt: record.expiresAt };
    entries.delete(record.ip);
    if (record.portsOpen.length + record.portsFiltered.length <= MAX_PORTS) {
      entries.set(record.ip, entry);
      if (entries.size > ENTRIES_PER_TYPE) entries.delete(entries.keys().next().value!);
    }
    return entry;
  }
}
