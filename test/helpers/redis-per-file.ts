// For a test file that talks to Redis: its own redis-server for the file's
// tests, and connections to it that are all closed at the end.
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

import { type RedisServer, startRedisServer } from '../../support/redis-server.js';

/** Call it (in a test) for a new plain connection. */
export interface RedisPerFile {
  (): Redis;
  /** The server's address as `--redis` takes it, for code that opens its own connections (BullMQ). */
  url(): string;
}

/** Registers the hooks; the returned function connects to the file's server. */
export function redisPerFile(): RedisPerFile {
  let server: RedisServer | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    for (const redis of clients) redis.disconnect();
    await server?.close();
  });
  const started = (): RedisServer => {
    if (server === undefined) throw new Error('redisPerFile: no server yet (connect inside a test)');
    return server;
  };
  const connect = (): Redis => {
    const redis = new Redis({ path: started().path });
    clients.push(redis);
    return redis;
  };
  return Object.assign(connect, { url: () => `unix://${started().path}` });
}
