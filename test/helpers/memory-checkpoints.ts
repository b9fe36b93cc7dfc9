// In-memory scan checkpoints for unit tests of logic above the store.
import type { SavedChunk, ScanCheckpoints } from '../../src/scan/scan-checkpoints.js';

export class MemoryCheckpoints implements ScanCheckpoints {
  /** Saved chunks by scan id, then chunk index. */
  readonly scans = new Map<string, Map<number, SavedChunk>>();

  async save(scanId: string, index: number, chunk: SavedChunk): Promise<void> {
    let chunks = this.scans.get(scanId);
    if (chunks === undefined) this.scans.set(scanId, (chunks = new Map()));
    chunks.set(index, structuredClone(chunk));
  }

  async load(scanId: string): Promise<Map<number, SavedChunk>> {
    return structuredClone(this.scans.get(scanId) ?? new Map<number, SavedChunk>());
  }

  async forget(scanId: string): Promise<void> {
    this.scans.delete(scanId);
  }

  async keepOnly(scanIds: ReadonlySet<string>): Promise<void> {
    for (const scanId of this.scans.keys()) if (!scanIds.has(scanId)) this.scans.delete(scanId);
  }

  async close(): Promise<void> {}
}
