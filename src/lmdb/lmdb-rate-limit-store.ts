// The rate limits of one process, kept in the data dir so that a restart
// does not hand every caller a fresh allowance. Memory answers every charge
// (the edge limit is on every request); changes are written behind, those
// of each WRITE_DELAY_MS in one lmdb transaction, so the disk sees at most
// a few commits a second whatever the request rate. A kill -9 loses at most
// the charges of the last WRITE_DELAY_MS or so; a clean stop writes them all.
import type { RootDatabase } from 'lmdb';
import type { Logger } from 'pino';

import type { RateDecision } from '../limits/rate/gcra.js';
import { MemoryRateLimitStore, type RateCharge, type RateLimitStore } from '../limits/rate/rate-limit-store.js';
import { openDurableLmdb } from './durable-lmdb.js';

/** How long changes gather before they are written together. */
const WRITE_DELAY_MS = 100;

export class LmdbRateLimitStore implements RateLimitStore {
  private readonly memory: MemoryRateLimitStore;
  /** Keys changed in memory since they were last written. */
  private readonly dirty = new Set<string>();
  private writing: Promise<void> | undefined;

  private constructor(
    private readonly db: RootDatabase<number, string>,
    private readonly log: Logger,
  ) {
    const tat = new Map<string, number>();
    for (const { key, value } of db.getRange()) tat.set(key, value);
    this.memory = new MemoryRateLimitStore(tat, (key) => this.changed(key));
  }

  /**
   * Opens (creating it if needed) `<dataDir>/rate-limits.lmdb`. Keys whose
   * allowance is whole again are dropped, from memory and disk alike, by
   * the store's periodic sweep, so both stay bounded.
   */
  static async open(dataDir: string, logger: Logger): Promise<LmdbRateLimitStore> {
    return new LmdbRateLimitStore(await openDurableLmdb<number>(dataDir, 'rate-limits.lmdb'), logger);
  }

  charge(charges: readonly RateCharge[], nowMs: number): Promise<RateDecision[]> {
    return this.memory.charge(charges, nowMs);
  }

  /** Writes what is still unwritten, then closes the database. */
  async close(): Promise<void> {
    await this.writing;
    await this.db.close();
  }

  private changed(key: string): void {
    this.dirty.add(key);
    this.writing ??= this.writeBehind();
  }

  /** Writes the dirty keys, one transaction at a time, until none is left. */
  private async writeBehind(): Promise<void> {
    try {
      while (this.dirty.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, WRITE_DELAY_MS)); // the changes meanwhile, together
        const keys = [...this.dirty];
        this.dirty.clear();
        await this.db.transaction(() => {
          for (const key of keys) {
            const tat = this.memory.get(key);
            if (tat === undefined) this.db.removeSync(key);
            else this.db.putSync(key, tat);
          }
        });
      }
    } catch (error) {
      // The limits still hold in memory; only what a restart remembers is older.
      this.log.error({ err: error }, 'could not write rate-limit state');
    } finally {
      this.writing = undefined;
    }
  }
}
