// The webhook outbox in the data dir (lmdb), for a single process.
import type { RootDatabase } from 'lmdb';

import { openDurableLmdb } from '../store/durable-lmdb.js';
import type { Delivery, Outbox } from './outbox.js';

/** The outbox in lmdb: a copy in memory answers every query; each change is on disk before its promise resolves. */
export class LmdbOutbox implements Outbox {
  private readonly entries = new Map<string, Delivery>();

  private constructor(private readonly db: RootDatabase<Delivery, string>) {
    for (const { value } of db.getRange()) this.entries.set(value.id, value);
  }

  /** Opens (creating it if needed) `<dataDir>/webhooks.lmdb`. */
  static async open(dataDir: string): Promise<LmdbOutbox> {
    return new LmdbOutbox(await openDurableLmdb<Delivery>(dataDir, 'webhooks.lmdb'));
  }

  all(): Delivery[] {
    return [...this.entries.values()];
  }

  put(delivery: Delivery): Promise<void> {
    this.entries.set(delivery.id, { ...delivery });
    return this.db.put(delivery.id, delivery).then(() => {});
  }

  delete(id: string): Promise<void> {
    this.entries.delete(id);
    return this.db.remove(id).then(() => {});
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
