// The webhook outbox of a cluster (issue #15): any API node takes a
// registration (a field of hooksKey(scanId) in Redis), whichever node
// finishes the scan makes its deliveries due, and any API node sends them.
// A delivery is a BullMQ job whose id is the delivery id, so making it due
// twice (a registration racing the finish, a finisher redone after a crash)
// still makes one delivery series, and the job of a node that died is taken
// up by another (webhook-queue.ts).
import { Queue, type Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import type { Outbox, Registration } from '../webhook/outbox.js';
import type { AttemptOptions, DueDelivery } from '../webhook/webhook-attempt.js';
import { bullmqConnection } from './redis-connection.js';
import { hooksKey, QUEUE_PREFIX, WEBHOOK_QUEUE } from './redis-keys.js';
import type { ReplicaWait } from './replica-wait.js';
import { deliveryJobOptions, KEEP_SECONDS, startWebhookWorker } from './webhook-queue.js';

export interface RedisOutboxOptions {
  /** A command connection (commandConnection); left open by close(). */
  redis: Redis;
  /** The Redis URL or unix socket (`--redis`) that BullMQ's connections are opened to. */
  redisUrl: string;
  config: Config['webhooks'];
  attempt: AttemptOptions;
  logger: Logger;
  /** Also send deliveries from this process (API nodes do). */
  work: boolean;
  /** Secures each registration against a failover (written again if need be). */
  durable?: ReplicaWait;
}

/** A registration as the value of its field in hooksKey(scanId). */
type StoredRegistration = Pick<Registration, 'url' | 'ip' | 'scanType' | 'regionsAsked'>;

export class RedisOutbox implements Outbox {
  private constructor(
    private readonly options: RedisOutboxOptions,
    private readonly connection: Redis,
    private readonly queue: Queue<DueDelivery>,
    private readonly worker: Worker<DueDelivery> | undefined,
  ) {}

  /** Opens the delivery queue and, with `work`, starts sending. */
  static async open(options: RedisOutboxOptions): Promise<RedisOutbox> {
    const { redisUrl, config, attempt, logger } = options;
    const connection = bullmqConnection(redisUrl);
    const queue = new Queue<DueDelivery>(WEBHOOK_QUEUE, { connection, prefix: QUEUE_PREFIX });
    queue.on('error', (error) => logger.error({ err: error }, 'webhook queue error'));
    try {
      await queue.waitUntilReady();
      const worker = options.work ? await startWebhookWorker({ connection, config, attempt, logger }) : undefined;
      return new RedisOutbox(options, connection, queue, worker);
    } catch (error) {
      await queue.close();
      connection.disconnect();
      throw error;
    }
  }

  /** The field is the delivery id, its value what the key does not say (the format nodes of earlier versions wrote too). */
  async register({ id, scanId, url, ip, scanType, regionsAsked }: Registration, rewritten?: () => Promise<void>): Promise<void> {
    const key = hooksKey(scanId);
    const value: StoredRegistration = { url, ip, scanType, regionsAsked };
    const write = () => this.options.redis.multi().hset(key, id, JSON.stringify(value)).expire(key, KEEP_SECONDS).exec();
    await write();
    await this.options.durable?.secure(`webhook ${id} registered`, async () => {
      await write();
      await rewritten?.();
      return 'written';
    });
  }

  async registrations(scanId: string): Promise<Registration[]> {
    const fields = await this.options.redis.hgetall(hooksKey(scanId));
    return Object.entries(fields).map(([id, json]) => ({ id, scanId, ...(JSON.parse(json) as StoredRegistration) }));
  }

  /** None: a scan's finish job runs until it has made its deliveries due, on whichever node. */
  async leftWaiting(): Promise<Registration[]> {
    return [];
  }

  /** Queues each delivery as a job with its id as job id: one already queued stays as it is. */
  async due(deliveries: readonly DueDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const jobs = deliveries.map((delivery) => ({ name: delivery.event, data: delivery, opts: deliveryJobOptions(this.options.config, delivery.id) }));
    await this.queue.addBulk(jobs);
  }

  /** Stops sending and closes the queue; the command connection stays open. */
  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    await this.connection.quit();
  }
}
