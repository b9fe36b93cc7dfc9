// A node starts only once its command connection reaches the primary. While
// the primary (or the Sentinels that name it) cannot be reached, it waits
// and says so in its log; a primary that refuses our credentials never
// will let us in, so that stops the start as a configuration error (exit 2).
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import { ConfigError } from '../config/config-sources.js';
import { redactRedisUrl } from '../config/redis-url.js';

/** An answer that says our credentials are wrong (not that Redis is down). */
export const REFUSED = /^(WRONGPASS|NOAUTH|NOPERM)|invalid password|invalid username/i;
/** Said once the wait has lasted this long. */
const WAITING_LOG_MS = 2000;

/** Resolves when `redis` is ready; throws ConfigError when the primary refuses our credentials. */
export function primaryReady(redis: Redis, url: string, logger: Logger): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    let lastError = '';
    const waiting = setTimeout(
      () => logger.warn({ event: 'redis_waiting', redis: redactRedisUrl(url), error: lastError }, `waiting for Redis (${lastError || 'no answer yet'})`),
      WAITING_LOG_MS,
    );
    const settle = (): void => {
      clearTimeout(waiting);
      redis.off('error', onError);
      redis.off('ready', onReady);
    };
    const onReady = (): void => {
      settle();
      resolve();
    };
    const onError = (error: Error): void => {
      lastError = error.message;
      if (!REFUSED.test(error.message)) return;
      settle();
      reject(new ConfigError(`the Redis primary of ${redactRedisUrl(url)} refused our credentials (${error.message}): check the user and password in --redis`));
    };
    redis.on('error', onError);
    redis.on('ready', onReady);
  });
}
