// Completion webhooks across a cluster (issue #15): any API node takes a
// registration, whichever node finishes the scan queues its deliveries,
// and any API node sends them. Registrations live in Redis; a delivery is a
// BullMQ job whose id is the delivery id, so queuing it twice (a
// registration racing the finish, a finisher redone after a crash) still
// makes one delivery series, and the job of a node that died is taken up by
// another (webhook-queue.ts).
import { randomUUID } from 'node:crypto';

import { Queue, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { ScanType } from '../api/scan-type.js';
import type { Config } from '../config/config.js';
import type { ScanRecord } from '../model/scan-record.js';
import { refuseCallbackUrl } from '../webhook/callback-url.js';
import type { SigningKey } from '../webhook/signing-key.js';
import type { DueDelivery } from '../webhook/webhook-attempt.js';
import { recordOwed, webhookBody } from '../webhook/webhook-body.js';
import type { Webhooks } from '../webhook/webhooks.js';
import { bullmqConnection } from './redis-connection.js';
import { hooksKey, QUEUE_PREFIX, WEBHOOK_QUEUE } from './redis-keys.js';
import { RedisResultStore } from './redis-result-store.js';
import { sharedSigningKey } from './redis-signing-key.js';
import { deliveryJobOptions, KEEP_SECONDS, startWebhookWorker } from './webhook-queue.js';

export interface ClusterWebhooksOptions {
  /** A command connection (commandConnection); left open by close(). */
  redis: Redis;
  /** The Redis URL or unix socket (`--redis`) that BullMQ's connections are opened to. */
  redisUrl: string;
  config: Config['webhooks'];
  /** Lets callbacks go to loopback and private addresses (tests, local trials). */
  allowPrivateCallbacks: boolean;
  userAgent: string;
  logger: Logger;
  /** Also send deliveries from this process (API nodes do). */
  work: boolean;
}

/** One registration, the value of its field in hooksKey(scanId). */
interface Registration {
  url: string;
  ip: string;
  scanType: ScanType;
}

/** The cluster's webhooks, as one API node sees them. */
export class ClusterWebhooks implements Webhooks {
  private readonly store: RedisResultStore;

  private constructor(
    readonly key: SigningKey,
    private readonly options: ClusterWebhooksOptions,
    private readonly connection: Redis,
    private readonly queue: Queue<DueDelivery>,
    private readonly worker: Worker<DueDelivery> | undefined,
  ) {
    this.store = new RedisResultStore(options.redis);
  }

  /** Reads (or creates) the shared signing key, opens the queue and, with `work`, starts sending. */
  static async open(options: ClusterWebhooksOptions): Promise<ClusterWebhooks> {
    const { redis, redisUrl, config, allowPrivateCallbacks, userAgent, logger } = options;
    const key = await sharedSigningKey(redis);
    const connection = bullmqConnection(redisUrl);
    const queue = new Queue<DueDelivery>(WEBHOOK_QUEUE, { connection, prefix: QUEUE_PREFIX });
    queue.on('error', (error) => logger.error({ err: error }, 'webhook queue error'));
    try {
      await queue.waitUntilReady();
      const attempt = { key, userAgent, allowPrivateCallbacks, timeoutSeconds: config.timeoutSeconds, logger };
      const worker = options.work ? await startWebhookWorker({ connection, config, attempt, logger }) : undefined;
      return new ClusterWebhooks(key, options, connection, queue, worker);
    } catch (error) {
      await queue.close();
      connection.disconnect();
      throw error;
    }
  }

  refuseUrl(url: string): string | null {
    return refuseCallbackUrl(url, this.options.allowPrivateCallbacks);
  }

  /**
   * Owes `url` a notification when scan `scanId` of (ip, scanType) ends.
   * The registration is in Redis before the scan's record is read, so a
   * finish racing it is seen by this call or by scanFinished, or both.
   */
  async register(scanId: string, ip: string, scanType: ScanType, url: string): Promise<void> {
    const id = randomUUID();
    const registration: Registration = { url, ip, scanType };
    const key = hooksKey(scanId);
    await this.options.redis.multi().hset(key, id, JSON.stringify(registration)).expire(key, KEEP_SECONDS).exec();
    this.options.logger.info({ event: 'webhook_registered', delivery: id, scanId, ip, scanType, url }, 'webhook registered');
    const owed = recordOwed(await this.store.get(ip, scanType), scanId, ip, scanType);
    if (owed !== null) await this.enqueue([{ id, scanId, url, ...webhookBody(owed) }]);
  }

  /** Queues the deliveries of every registration of `record`'s scan; call after its final record is stored. */
  async scanFinished(record: ScanRecord): Promise<void> {
    const registrations = await this.options.redis.hgetall(hooksKey(record.id));
    const body = webhookBody(record);
    const due = Object.entries(registrations).map(([id, json]): DueDelivery => {
      const { url } = JSON.parse(json) as Registration;
      return { id, scanId: record.id, url, ...body };
    });
    await this.enqueue(due);
  }

  /** Stops sending (an attempt under way ends first) and closes the queue; the command connection stays open. */
  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    await this.connection.quit();
  }

  /** Queues each delivery as a job with its id as job id: one already queued stays as it is. */
  private async enqueue(due: readonly DueDelivery[]): Promise<void> {
    if (due.length === 0) return;
    await this.queue.addBulk(due.map((delivery) => ({ name: delivery.event, data: delivery, opts: deliveryJobOptions(this.options.config, delivery.id) })));
  }
}
