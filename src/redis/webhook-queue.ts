// The BullMQ queue of webhook deliveries, both halves of its contract: the
// options a delivery job is queued with (its number of attempts, and how
// long it is kept so that its id is never queued twice), and the worker
// that sends it with our retry schedule. A job whose node dies mid-attempt
// (kill -9) goes back to the queue within seconds and never fails for it.
import { type JobsOptions, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import { type AttemptOptions, attemptDelivery, type DueDelivery, PARALLEL_ATTEMPTS } from '../webhook/webhook-attempt.js';
import { QUEUE_PREFIX, WEBHOOK_QUEUE } from './redis-keys.js';
import { STALL_SETTINGS } from './stall-settings.js';

/** How long a delivery's registration and its finished job are kept: within it, a delivery id is queued once. */
export const KEEP_SECONDS = 24 * 60 * 60;

/** The options of a delivery job: one attempt more than there are retry delays. */
export function deliveryJobOptions(config: Config['webhooks'], deliveryId: string): JobsOptions {
  return {
    jobId: deliveryId,
    attempts: config.retryDelaysSeconds.length + 1,
    backoff: { type: 'selfscan-webhook' }, // not built in: the worker's backoffStrategy
    removeOnComplete: { age: KEEP_SECONDS },
    removeOnFail: { age: KEEP_SECONDS },
  };
}

export interface WebhookWorkerOptions {
  /** A BullMQ connection (bullmqConnection); the worker opens its own copies of it. */
  connection: Redis;
  config: Config['webhooks'];
  attempt: AttemptOptions;
  logger: Logger;
}

/** Starts sending the queue's deliveries from this process; resolves once the worker is connected. */
export async function startWebhookWorker(options: WebhookWorkerOptions): Promise<Worker<DueDelivery>> {
  const delays = options.config.retryDelaysSeconds;
  const worker = new Worker<DueDelivery>(
    WEBHOOK_QUEUE,
    async (job) => {
      const retriesLeft = job.attemptsMade + 1 < (job.opts.attempts ?? 1);
      // attemptsStarted counts an attempt cut short by a node's death too.
      const report = await attemptDelivery(job.data, job.attemptsStarted, retriesLeft, options.attempt);
      if (report.outcome === 'retry') throw new Error(report.detail); // BullMQ retries it, if attempts are left
    },
    {
      connection: options.connection,
      prefix: QUEUE_PREFIX,
      concurrency: PARALLEL_ATTEMPTS,
      ...STALL_SETTINGS,
      settings: {
        // After failed attempt n, wait delays[n - 1]; a job queued under a longer schedule waits the last delay.
        backoffStrategy: (attemptsMade: number) => (delays[Math.min(attemptsMade, delays.length) - 1] ?? 0) * 1000,
      },
    },
  );
  worker.on('error', (error) => options.logger.error({ err: error }, 'webhook worker error'));
  await worker.waitUntilReady();
  return worker;
}
