// What a node's command connection sees of the primary after the start:
// losing it (logged once per outage, not once per retry), reaching it again,
// and reaching a different one (a Sentinel failover), counted in /metrics
// and logged with the address, so an operator sees when and where it moved.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { Metrics } from '../metrics/metrics.js';

/** Watches `redis` (already ready) for as long as it lives. */
export function watchPrimary(redis: Redis, metrics: Pick<Metrics, 'redisReconnected'>, logger: Logger): void {
  let primary = addressOf(redis);
  let lostAt: number | undefined;
  /** Once per outage, whichever says it first. */
  const lost = (error?: Error): void => {
    if (lostAt !== undefined) return;
    lostAt = Date.now();
    logger.warn({ event: 'redis_lost', primary, err: error }, `lost the Redis primary ${primary}${error === undefined ? '' : `: ${error.message}`}`);
  };
  redis.on('error', lost);
  // 'reconnecting', not 'close': a connection closed on purpose (the node stopping) is not a lost primary.
  redis.on('reconnecting', () => lost());
  redis.on('ready', () => {
    const now = addressOf(redis);
    const failover = now !== primary;
    metrics.redisReconnected(failover);
    const downMs = lostAt === undefined ? null : Date.now() - lostAt;
    logger.warn(
      { event: failover ? 'redis_failover' : 'redis_reconnected', primary: now, previous: primary, downMs },
      failover ? `the Redis primary is now ${now} (was ${primary}), after ${downMs} ms` : `reached the Redis primary ${now} again after ${downMs} ms`,
    );
    primary = now;
    lostAt = undefined;
  });
}

/** Where the connection is connected: host:port, or its unix socket. */
function addressOf(redis: Redis): string {
  const stream = redis.stream as { remoteAddress?: string; remotePort?: number } | undefined;
  if (stream?.remoteAddress !== undefined) return `${stream.remoteAddress}:${stream.remotePort}`;
  return redis.options.path ?? `${redis.options.host}:${redis.options.port}`;
}
