// The durable outbox of webhook deliveries: an entry is written when a POST
// asks for a callback, becomes due when its scan ends, and is deleted once
// delivered or given up. A copy in memory answers every query; each change
// is on disk before its promise resolves.
import type { RootDatabase } from 'lmdb';

import type { ScanType } from '../api/scan-type.js';
import type { WebhookEvent } from '../api/webhook-payload.js';
import { openDurableLmdb } from '../store/durable-lmdb.js';

export interface Delivery {
  /** Also the X-Selfscan-Delivery header: the same on every retry. */
  id: string;
  scanId: string;
  ip: string;
  scanType: ScanType;
  url: string;
  /** waiting: its scan is in flight; due: to be sent at nextAttemptAt. */
  state: 'waiting' | 'due';
  event: WebhookEvent | null;
  /** The JSON payload, fixed when due so that every retry sends the same bytes. */
  body: string | null;
  attempts: number;
  /** Unix ms. */
  nextAttemptAt: number;
}

export class Outbox {
  private readonly entries = new Map<string, Delivery>();

  private constructor(private readonly db: RootDatabase<Delivery, string>) {
    for (const { value } of db.getRange()) this.entries.set(value.id, value);
  }

  static async open(dataDir: string): Promise<Outbox> {
    return new Outbox(await openDurableLmdb<Delivery>(dataDir, 'webhooks.lmdb'));
  }

  all(): Delivery[] {
    return [...this.entries.values()];
  }

  /** Records `delivery`; visible to queries at once, durable when the promise resolves. */
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
