// The round trip and failures of a node's own Redis commands (scripts,
// reads, the health check's PING), by command name: every command an
// ioredis connection sends passes its sendCommand. BullMQ's connections are
// left out: their blocking reads wait on purpose.
import type { Redis } from 'ioredis';

import type { Metrics } from './metrics.js';

type Command = Parameters<Redis['sendCommand']>[0];

/** `redis`, each of its commands timed and counted. */
export function countCommands(redis: Redis, metrics: Pick<Metrics, 'redisCommand'>): Redis {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command: Command, stream?: Parameters<Redis['sendCommand']>[1]) => {
    const began = performance.now();
    const settled = (failed: boolean) => () => metrics.redisCommand(command.name, (performance.now() - began) / 1000, failed);
    command.promise.then(settled(false), settled(true));
    return send(command, stream);
  };
  return redis;
}
