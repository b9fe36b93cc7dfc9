// `selfscan serve`: one process with every role (single-serve.ts), or with
// --redis one node of a cluster (cluster-serve.ts, which alone loads bullmq
// and ioredis).
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import type { RunningServer, ServeDependencies } from './running-server.js';
import { startSingleServer } from './single-serve.js';

export async function startServer(config: Config, logger: Logger, deps: ServeDependencies = {}): Promise<RunningServer> {
  if (config.redisUrl !== undefined) return (await import('./cluster-serve.js')).startClusterServer(config, logger, deps);
  return startSingleServer(config, logger, deps);
}
