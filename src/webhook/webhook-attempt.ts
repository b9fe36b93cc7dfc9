// One delivery attempt of a webhook, the same wherever it runs: the
// headers, the Ed25519 signature of `<timestamp>.<body>`, the SSRF-safe
// POST and one `webhook_attempt` log line. The embedded service and the
// cluster's queue worker decide when attempts happen and what follows.
import type { Logger } from 'pino';

import type { WebhookEvent } from '../api/webhook-payload.js';
import type { Metrics } from '../metrics/metrics.js';
import { type AttemptResult, safePost } from './safe-post.js';
import type { SigningKey } from './signing-key.js';

/** Attempts running at once in one process. */
export const PARALLEL_ATTEMPTS = 16;

/** A delivery whose body is fixed: what each of its attempts sends. */
export interface DueDelivery {
  /** The X-Selfscan-Delivery header: the same on every retry. */
  id: string;
  scanId: string;
  url: string;
  event: WebhookEvent;
  /** The JSON payload, byte for byte. */
  body: string;
}

export interface AttemptOptions {
  key: SigningKey;
  userAgent: string;
  /** Lets callbacks go to loopback and private addresses (tests, local trials). */
  allowPrivateCallbacks: boolean;
  timeoutSeconds: number;
  logger: Logger;
  /** Counts attempts and ended deliveries; absent: nothing counted. */
  metrics?: Pick<Metrics, 'webhookAttempted'>;
}

export interface AttemptReport extends AttemptResult {
  /** The outcome asks for another attempt and the caller has one left. */
  willRetry: boolean;
}

/**
 * Sends attempt number `attempt` of `delivery` and logs it. `retriesLeft`
 * says whether the caller would try again after a `retry` outcome.
 */
export async function attemptDelivery(delivery: DueDelivery, attempt: number, retriesLeft: boolean, options: AttemptOptions): Promise<AttemptReport> {
  const timestamp = Math.floor(Date.now() / 1000);
  const result = await safePost(
    new URL(delivery.url),
    delivery.body,
    {
      'Content-Type': 'application/json',
      'User-Agent': options.userAgent,
      'X-Selfscan-Delivery': delivery.id,
      'X-Selfscan-Event': delivery.event,
      'X-Selfscan-Timestamp': String(timestamp),
      'X-Selfscan-Signature': options.key.sign(timestamp, delivery.body),
    },
    { allowPrivate: options.allowPrivateCallbacks, timeoutMs: options.timeoutSeconds * 1000 },
  );
  const willRetry = result.outcome === 'retry' && retriesLeft;
  options.logger.info(
    {
      event: 'webhook_attempt',
      delivery: delivery.id,
      scanId: delivery.scanId,
      url: delivery.url,
      attempt,
      outcome: result.outcome,
      status: result.status,
      detail: result.detail,
      willRetry,
    },
    `webhook ${result.outcome}`,
  );
  // A retry outcome with no retry left gives the delivery up; any other outcome ends it too.
  options.metrics?.webhookAttempted(result.outcome, attempt, !willRetry);
  return { ...result, willRetry };
}
