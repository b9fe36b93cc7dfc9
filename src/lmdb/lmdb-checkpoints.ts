// The scan checkpoints of a single process: one lmdb entry per chunk
// verified, keyed `<scan id>|<chunk index>`, in `<dataDir>/checkpoints.lmdb`.
// A chunk costs one small write (lmdb batches the writes of one turn of the
// event loop into one commit), not a rewrite of the whole record.
import type { RootDatabase } from 'lmdb';

import type { SavedChunk, ScanCheckpoints } from '../scan/scan-checkpoints.js';
import { openDurableLmdb } from './durable-lmdb.js';

const chunkKey = (scanId: string, index: number): string => `${scanId}|${index}`;
/** Every key of `scanId` sorts between these two: `|` < digits < `~`. */
const rangeOf = (scanId: string) => ({ start: `${scanId}|`, end: `${scanId}|~` });

export class LmdbCheckpoints implements ScanCheckpoints {
  private constructor(private readonly db: RootDatabase<SavedChunk, string>) {}

  /** Opens (creating it if needed) `<dataDir>/checkpoints.lmdb`; a save resolves once synced to disk. */
  static async open(dataDir: string): Promise<LmdbCheckpoints> {
    return new LmdbCheckpoints(await openDurableLmdb<SavedChunk>(dataDir, 'checkpoints.lmdb'));
  }

  async save(scanId: string, index: number, chunk: SavedChunk): Promise<void> {
    await this.db.put(chunkKey(scanId, index), chunk);
  }

  async load(scanId: string): Promise<Map<number, SavedChunk>> {
    const chunks = new Map<number, SavedChunk>();
    for (const { key, value } of this.db.getRange(rangeOf(scanId))) chunks.set(Number(key.slice(scanId.length + 1)), value);
    return chunks;
  }

  async forget(scanId: string): Promise<void> {
    await this.removeWhere(this.db.getKeys(rangeOf(scanId)), () => true);
  }

  async keepOnly(scanIds: ReadonlySet<string>): Promise<void> {
    await this.removeWhere(this.db.getKeys(), (key) => !scanIds.has(key.slice(0, key.lastIndexOf('|'))));
  }

  /** Removes the keys of `keys` that `remove` picks, read and removed in one write transaction. */
  private removeWhere(keys: Iterable<string>, remove: (key: string) => boolean): Promise<void> {
    return this.db.transaction(() => {
      for (const key of [...keys].filter(remove)) this.db.removeSync(key);
    });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
