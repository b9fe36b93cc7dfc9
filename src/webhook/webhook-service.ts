// Completion webhooks (spec 6.2), the same in one process and in a
// cluster: every POST that named an X-Callback-Url is owed one signed
// notification when its scan completes or fails. A registration is kept
// before the scan's record is read, so an end racing it is seen by the
// registration or by scanFinished (or both: the outbox sends a delivery
// once). Keeping and sending are the outbox's (outbox.ts).
import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import type { ScanType } from '../api/scan-type.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { ResultStore } from '../scan/result-store.js';
import { refuseCallbackUrl } from './callback-url.js';
import type { Outbox, Registration } from './outbox.js';
import type { SigningKey } from './signing-key.js';
import type { DueDelivery } from './webhook-attempt.js';
import { recordOwed, webhookBody } from './webhook-body.js';
import type { Webhooks } from './webhooks.js';

export interface WebhookServiceOptions {
  outbox: Outbox;
  key: SigningKey;
  /** Where ended scans' records are read. */
  store: Pick<ResultStore, 'get'>;
  /** Lets callbacks go to loopback and private addresses (tests, local trials). */
  allowPrivateCallbacks: boolean;
  logger: Logger;
}

export class WebhookService implements Webhooks {
  readonly key: SigningKey;

  private constructor(private readonly options: WebhookServiceOptions) {
    this.key = options.key;
  }

  /** Makes due what an earlier process left owed for scans that have ended since. */
  static async open(options: WebhookServiceOptions): Promise<WebhookService> {
    const service = new WebhookService(options);
    for (const registration of await options.outbox.leftWaiting()) await service.dueIfEnded(registration);
    return service;
  }

  refuseUrl(url: string): string | null {
    return refuseCallbackUrl(url, this.options.allowPrivateCallbacks);
  }

  /** Owes `url` a notification when scan `scanId` of (ip, scanType[, regions asked]) ends. Durable when it resolves. */
  async register(scanId: string, ip: string, scanType: ScanType, url: string, regionsAsked?: string): Promise<void> {
    const registration: Registration = { id: randomUUID(), scanId, ip, scanType, url, ...(regionsAsked === undefined ? {} : { regionsAsked }) };
    await this.options.outbox.register(registration, () => this.dueIfEnded(registration));
    this.options.logger.info({ event: 'webhook_registered', delivery: registration.id, scanId, ip, scanType, url }, 'webhook registered');
    await this.dueIfEnded(registration); // the scan may have ended while it was being kept
  }

  /** Makes due every registration of `record`'s scan; called once its final record is stored. */
  async scanFinished(record: ScanRecord): Promise<void> {
    const registrations = await this.options.outbox.registrations(record.id);
    await this.options.outbox.due(registrations.map((registration) => deliveryOf(registration, record)));
  }

  /** Stops sending; what is owed stays in the outbox. */
  close(): Promise<void> {
    return this.options.outbox.close();
  }

  private async dueIfEnded(registration: Registration): Promise<void> {
    const { scanId, ip, scanType, regionsAsked } = registration;
    const owed = recordOwed(await this.options.store.get(ip, scanType, regionsAsked), scanId, ip, scanType);
    if (owed !== null) await this.options.outbox.due([deliveryOf(registration, owed)]);
  }
}

function deliveryOf(registration: Registration, record: ScanRecord): DueDelivery {
  return { id: registration.id, scanId: record.id, url: registration.url, ...webhookBody(record) };
}
