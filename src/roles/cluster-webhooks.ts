// The webhooks of a cluster node: the one webhook service over the Redis
// outbox, signing with the key every node shares and reading ended scans
// from the shared results.
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import type { Metrics } from '../metrics/metrics.js';
import { RedisOutbox, type RedisOutboxOptions } from '../redis/redis-outbox.js';
import { RedisResultStore } from '../redis/redis-result-store.js';
import { sharedSigningKey } from '../redis/redis-signing-key.js';
import { WebhookService } from '../webhook/webhook-service.js';

export interface ClusterWebhooksOptions extends Omit<RedisOutboxOptions, 'attempt'> {
  config: Config['webhooks'];
  /** Lets callbacks go to loopback and private addresses (tests, local trials). */
  allowPrivateCallbacks: boolean;
  userAgent: string;
  logger: Logger;
  /** Counts webhook attempts and deliveries. */
  metrics?: Metrics;
}

/** Reads (or creates) the shared signing key, opens the outbox and, with `work`, starts sending. */
export async function openClusterWebhooks(options: ClusterWebhooksOptions): Promise<WebhookService> {
  const { redis, config, allowPrivateCallbacks, userAgent, logger, metrics } = options;
  const key = await sharedSigningKey(redis);
  const attempt = { key, userAgent, allowPrivateCallbacks, timeoutSeconds: config.timeoutSeconds, logger, metrics };
  const outbox = await RedisOutbox.open({ ...options, attempt });
  return WebhookService.open({ outbox, key, store: new RedisResultStore(redis), allowPrivateCallbacks, logger });
}
