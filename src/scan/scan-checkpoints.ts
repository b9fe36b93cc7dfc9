// A scan's progress, saved chunk by chunk while it runs, so that a scan a
// crash cut short resumes from its last verified chunk instead of starting
// over or being lost. Embedded (lmdb) in one process; a cluster keeps its
// own per-chunk state in Redis and does not use this.
import type { Port } from '../api/port.js';
import type { ScanRecord } from '../model/scan-record.js';

/** What one chunk found, every port of it verified. */
export interface SavedChunk {
  open: Port[];
  filtered: Port[];
}

export interface ScanCheckpoints {
  /** Saves chunk `index` of scan `scanId`, verified whole; durable when it resolves. */
  save(scanId: string, index: number, chunk: SavedChunk): Promise<void>;
  /** The chunks of `scanId` saved so far, by index. */
  load(scanId: string): Promise<Map<number, SavedChunk>>;
  /** Forgets the chunks of `scanId` (it has ended). */
  forget(scanId: string): Promise<void>;
  /** Forgets the chunks of every scan not in `scanIds` (a start: scans no longer in flight). */
  keepOnly(scanIds: ReadonlySet<string>): Promise<void>;
  close(): Promise<void>;
}

/** Makes `record`'s progress what `chunks` say: chunks complete and the ports they found. */
export function applySavedChunks(record: ScanRecord, chunks: ReadonlyMap<number, SavedChunk>): void {
  record.chunksComplete = chunks.size;
  record.portsOpen = [...chunks.values()].flatMap((chunk) => chunk.open);
  record.portsFiltered = [...chunks.values()].flatMap((chunk) => chunk.filtered);
}
