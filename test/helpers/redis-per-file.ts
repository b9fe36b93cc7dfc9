// For a test file that talks to Redis: its own redis-server for the file's
// tests, and connections to it that are all closed at the end.
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

import { type RedisServer, startRedisServer } from '../fixtures/redis-server.js';

/** Registers the hooks; call the returned function (in a test) for a new connection. */
export function redisPerFile(): () => Redis {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
    await server?.close();
  });
  return () => {
    if (server === undefined) throw new Error('redisPerFile: no server yet (connect inside a test)');
    const redis = new Redis({ path: server.path });
    clients.push(redis);
    return redis;
  };
}
