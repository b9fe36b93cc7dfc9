// Connections to the cluster's Redis primary. `--redis` takes a redis://
// or rediss:// URL, or a unix socket (`unix:///path/redis.sock` or a plain
// path). Commands fail at once while Redis is unreachable (no offline
// queue), so a request gets a clear 503 instead of hanging; BullMQ's own
// connections wait and retry forever, as BullMQ requires.
import { Redis, type RedisOptions } from 'ioredis';

/** ioredis options for `url`. */
export function redisOptions(url: string): RedisOptions {
  if (url.startsWith('/')) return { path: url };
  if (url.startsWith('unix://')) return { path: new URL(url).pathname };
  const parsed = new URL(url);
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new TypeError(`not a Redis URL: ${url}`);
  return {
    host: parsed.hostname,
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    username: parsed.username === '' ? undefined : decodeURIComponent(parsed.username),
    password: parsed.password === '' ? undefined : decodeURIComponent(parsed.password),
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
    tls: parsed.protocol === 'rediss:' ? {} : undefined,
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
    retryStrategy: (times) => Math.min(times * 100, 1000),
  });
}

/** A connection for a BullMQ Queue or Worker (they need maxRetriesPerRequest null). */
export function bullmqConnection(url: string): Redis {
  return new Redis({ ...redisOptions(url), maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 100, 1000) });
}
