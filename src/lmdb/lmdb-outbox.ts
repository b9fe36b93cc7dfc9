// The webhook outbox of a single process: every delivery owed in the data
// dir (lmdb), sent from this process. A delivery waits while its scan is in
// flight, is due once it ended, and is deleted once delivered or given up;
// its attempts and next attempt time are stored, so a restart goes on with
// the same schedule.
import type { RootDatabase } from 'lmdb';

import type { WebhookEvent } from '../api/webhook-payload.js';
import type { Outbox, Registration } from '../webhook/outbox.js';
import { type AttemptOptions, attemptDelivery, type DueDelivery, PARALLEL_ATTEMPTS } from '../webhook/webhook-attempt.js';
import { openDurableLmdb } from './durable-lmdb.js';

/** A delivery as stored. */
interface Delivery extends Registration {
  /** waiting: its scan is in flight; due: to be sent at nextAttemptAt. */
  state: 'waiting' | 'due';
  event: WebhookEvent | null;
  /** The JSON payload, fixed when due so that every retry sends the same bytes. */
  body: string | null;
  attempts: number;
  /** Unix ms. */
  nextAttemptAt: number;
}

export interface LmdbOutboxSending {
  attempt: AttemptOptions;
  /** The wait before each retry; a delivery is given up after the last. */
  retryDelaysSeconds: readonly number[];
}

/** A copy in memory answers every query; each change is on disk before its promise resolves. */
export class LmdbOutbox implements Outbox {
  private readonly entries = new Map<string, Delivery>();
  private readonly sending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  private constructor(
    private readonly db: RootDatabase<Delivery, string>,
    private readonly options: LmdbOutboxSending,
  ) {
    for (const { value } of db.getRange()) this.entries.set(value.id, value);
  }

  /** Opens (creating it if needed) `<dataDir>/webhooks.lmdb` and sends what is due in it. */
  static async open(dataDir: string, sending: LmdbOutboxSending): Promise<LmdbOutbox> {
    const outbox = new LmdbOutbox(await openDurableLmdb<Delivery>(dataDir, 'webhooks.lmdb'), sending);
    outbox.schedule();
    return outbox;
  }

  register(registration: Registration): Promise<void> {
    return this.put({ ...registration, state: 'waiting', event: null, body: null, attempts: 0, nextAttemptAt: 0 });
  }

  async registrations(scanId: string): Promise<Registration[]> {
    return this.waiting().filter((delivery) => delivery.scanId === scanId);
  }

  async leftWaiting(): Promise<Registration[]> {
    return this.waiting();
  }

  async due(deliveries: readonly DueDelivery[]): Promise<void> {
    for (const { id, event, body } of deliveries) {
      const current = this.entries.get(id);
      if (this.closed || current === undefined || current.state !== 'waiting') continue;
      await this.put({ ...current, state: 'due', event, body, nextAttemptAt: Date.now() });
    }
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    while (this.sending.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.db.close();
  }

  private waiting(): Registration[] {
    return [...this.entries.values()]
      .filter((delivery) => delivery.state === 'waiting')
      .map(({ id, scanId, ip, scanType, url }) => ({ id, scanId, ip, scanType, url }));
  }

  private put(delivery: Delivery): Promise<void> {
    this.entries.set(delivery.id, { ...delivery });
    return this.db.put(delivery.id, delivery).then(() => {});
  }

  private delete(id: string): Promise<void> {
    this.entries.delete(id);
    return this.db.remove(id).then(() => {});
  }

  /** Sends what is due now, and sets one timer for the next due attempt. */
  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    const now = Date.now();
    const due = [...this.entries.values()].filter((d) => d.state === 'due' && !this.sending.has(d.id));
    for (const delivery of due) {
      if (delivery.nextAttemptAt <= now && this.sending.size < PARALLEL_ATTEMPTS) void this.attempt(delivery);
    }
    const later = due.filter((d) => !this.sending.has(d.id)).map((d) => d.nextAttemptAt);
    if (later.length > 0) {
      this.timer = setTimeout(() => this.schedule(), Math.max(0, Math.min(...later) - now));
      this.timer.unref();
    }
  }

  private async attempt(delivery: Delivery): Promise<void> {
    this.sending.add(delivery.id);
    const { id, scanId, url, event, body } = delivery;
    const attempts = delivery.attempts + 1;
    const delays = this.options.retryDelaysSeconds;
    const { willRetry } = await attemptDelivery({ id, scanId, url, event: event!, body: body! }, attempts, attempts <= delays.length, this.options.attempt);
    try {
      if (willRetry) {
        await this.put({ ...delivery, attempts, nextAttemptAt: Date.now() + delays[attempts - 1]! * 1000 });
      } else {
        await this.delete(delivery.id);
      }
    } finally {
      this.sending.delete(delivery.id);
    }
    this.schedule();
  }
}
