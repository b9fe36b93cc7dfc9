// Connections to the cluster's Redis primary, as `--redis` names it
// (src/config/redis-url.ts): a redis:// or rediss:// URL, a unix socket, or
// Sentinels (redis+sentinel://) that name the primary. Through Sentinels,
// every connection asks them for the primary each time it connects, so it
// follows a failover; one that finds itself on a replica (a primary demoted
// while we were connected: READONLY) reconnects. Commands fail at once while
// no primary answers (no offline queue), so a request gets a clear 503
// instead of hanging; BullMQ's own connections wait and retry forever, as
// BullMQ requires (its workers' blocking connections are copies of these).
import { Redis, type RedisOptions } from 'ioredis';

import { parseRedisUrl } from '../config/redis-url.js';

/** Longest wait between two attempts to reach the primary (or the Sentinels). */
const MAX_RETRY_MS = 1000;
const retry = (times: number): number => Math.min(times * 100, MAX_RETRY_MS);

/** ioredis options for `url`. */
export function redisOptions(url: string): RedisOptions {
  const target = parseRedisUrl(url);
  if (target.kind === 'socket') return { path: target.path };
  const data = { username: target.username, password: target.password, db: target.db, tls: target.tls ? {} : undefined };
  if (target.kind === 'primary') return { host: target.host, port: target.port, ...data };
  return {
    ...data,
    sentinels: target.sentinels,
    name: target.masterName,
    sentinelUsername: target.sentinelUsername,
    sentinelPassword: target.sentinelPassword,
    sentinelTLS: target.tls ? {} : undefined,
    enableTLSForSentinelMode: target.tls,
    sentinelRetryStrategy: retry,
    // A primary demoted under us answers writes with READONLY: reconnect (through the Sentinels) and send the command again.
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 2 : false),
  };
}

/** A command Redis does not answer in this time fails (a stalled primary answers as unreachable). */
const COMMAND_TIMEOUT_MS = 3000;

/** A connection for our own commands and scripts: fails fast while Redis is down. */
export function commandConnection(url: string): Redis {
  return new Redis({
    ...redisOptions(url),
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: retry,
  });
}

/** A connection for a BullMQ Queue or Worker (they need maxRetriesPerRequest null). */
export function bullmqConnection(url: string): Redis {
  return new Redis({ ...redisOptions(url), maxRetriesPerRequest: null, retryStrategy: retry });
}
