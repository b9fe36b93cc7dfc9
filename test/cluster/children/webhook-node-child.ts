// Child of the cluster-webhooks crash test: an API node that sends the
// cluster's webhooks, until the test kills it with SIGKILL in the middle of
// an attempt. Says `ready` once its worker is connected; logs to stderr.
import { once } from 'node:events';

import { pino } from 'pino';

import type { Config } from '../../../src/config/config.js';
import { commandConnection } from '../../../src/redis/redis-connection.js';
import { openClusterWebhooks } from '../../../src/roles/cluster-webhooks.js';

const [redisUrl, config] = process.argv.slice(2);
if (redisUrl === undefined || config === undefined) throw new Error('usage: webhook-node-child.ts <redis url> <webhooks config json>');

const redis = commandConnection(redisUrl);
await once(redis, 'ready'); // a command connection fails fast until then
await openClusterWebhooks({
  redis,
  redisUrl,
  config: JSON.parse(config) as Config['webhooks'],
  allowPrivateCallbacks: true,
  userAgent: 'selfscan/test',
  logger: pino(pino.destination(2)),
  work: true,
});
process.stdout.write('ready\n');
