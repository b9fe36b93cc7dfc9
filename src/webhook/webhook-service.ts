// Completion webhooks (spec 6.2): every POST that named an X-Callback-Url
// gets one signed notification when its scan completes or fails, retried
// with backoff, and owed across restarts (the outbox is durable).
import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import type { ScanType } from '../api/scan-type.js';
import type { Config } from '../config/config.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { ResultStore } from '../store/result-store.js';
import { refuseCallbackUrl } from './callback-url.js';
import type { Delivery, Outbox } from './outbox.js';
import type { SigningKey } from './signing-key.js';
import { type AttemptOptions, attemptDelivery, PARALLEL_ATTEMPTS } from './webhook-attempt.js';
import { recordOwed, webhookBody } from './webhook-body.js';
import type { Webhooks } from './webhooks.js';

export interface WebhookServiceOptions {
  outbox: Outbox;
  key: SigningKey;
  config: Config['webhooks'];
  allowPrivateCallbacks: boolean;
  store: ResultStore;
  /** Whether the scan with this id is still queued or running. */
  isLive: (scanId: string) => boolean;
  userAgent: string;
  logger: Logger;
}

/** The embedded webhooks: the outbox in this process, sent from this process. */
export class WebhookService implements Webhooks {
  private readonly log: Logger;
  private readonly sending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  private readonly outbox: Outbox;
  private readonly attemptOptions: AttemptOptions;
  readonly key: SigningKey;

  private constructor(private readonly options: WebhookServiceOptions) {
    this.log = options.logger;
    this.outbox = options.outbox;
    this.key = options.key;
    const { userAgent, allowPrivateCallbacks, config, logger } = options;
    this.attemptOptions = { key: options.key, userAgent, allowPrivateCallbacks, timeoutSeconds: config.timeoutSeconds, logger };
  }

  /** Takes up what a previous process left owed in the outbox. */
  static async open(options: WebhookServiceOptions): Promise<WebhookService> {
    const service = new WebhookService(options);
    for (const delivery of service.outbox.all()) {
      if (delivery.state === 'waiting' && !options.isLive(delivery.scanId)) await service.resolveFromStore(delivery);
    }
    service.schedule();
    return service;
  }

  refuseUrl(url: string): string | null {
    return refuseCallbackUrl(url, this.options.allowPrivateCallbacks);
  }

  /** Owes `url` a notification when scan `scanId` ends. Durable when it resolves. */
  async register(scanId: string, ip: string, scanType: ScanType, url: string): Promise<void> {
    const delivery: Delivery = { id: randomUUID(), scanId, ip, scanType, url, state: 'waiting', event: null, body: null, attempts: 0, nextAttemptAt: 0 };
    await this.outbox.put(delivery);
    this.log.info({ event: 'webhook_registered', delivery: delivery.id, scanId, ip, scanType, url }, 'webhook registered');
    // The scan may have ended while the entry was being written.
    if (!this.options.isLive(scanId)) await this.resolveFromStore(delivery);
  }

  /** Called when a scan has ended and its record is stored. */
  async scanFinished(record: ScanRecord): Promise<void> {
    const waiting = this.outbox.all().filter((d) => d.scanId === record.id && d.state === 'waiting');
    await Promise.all(waiting.map((delivery) => this.makeDue(delivery, record)));
  }

  /** Stops sending; what is owed stays in the outbox for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    while (this.sending.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await this.outbox.close();
  }

  private async resolveFromStore(delivery: Delivery): Promise<void> {
    const stored = await this.options.store.get(delivery.ip, delivery.scanType);
    const owed = recordOwed(stored, delivery.scanId, delivery.ip, delivery.scanType);
    if (owed !== null) await this.makeDue(delivery, owed);
  }

  private async makeDue(delivery: Delivery, record: ScanRecord): Promise<void> {
    const current = this.outbox.all().find((d) => d.id === delivery.id);
    if (this.closed || current === undefined || current.state !== 'waiting') return;
    await this.outbox.put({ ...current, state: 'due', ...webhookBody(record), nextAttemptAt: Date.now() });
    this.schedule();
  }

  /** Sends what is due now, and sets one timer for the next due attempt. */
  private schedule(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    const now = Date.now();
    const due = this.outbox.all().filter((d) => d.state === 'due' && !this.sending.has(d.id));
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
    const delays = this.options.config.retryDelaysSeconds;
    const { willRetry } = await attemptDelivery({ id, scanId, url, event: event!, body: body! }, attempts, attempts <= delays.length, this.attemptOptions);
    try {
      if (willRetry) {
        await this.outbox.put({ ...delivery, attempts, nextAttemptAt: Date.now() + delays[attempts - 1]! * 1000 });
      } else {
        await this.outbox.delete(delivery.id);
      }
    } finally {
      this.sending.delete(delivery.id);
    }
    this.schedule();
  }
}
