// Before a node connects through Sentinels, it asks them once for the
// primary, so that what will never work stops the start with a clear
// configuration error (exit 2): Sentinels that refuse our credentials, or
// that know no master of that name. Sentinels that do not answer at all may
// be starting or restarting: the node waits for them and says so in its
// log, as it waits for a primary that is down.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';

import { ConfigError } from '../config/config-sources.js';
import { type RedisEndpoint, type RedisTarget, redactRedisUrl } from '../config/redis-url.js';
import { REFUSED } from './primary-ready.js';

type SentinelTarget = Extract<RedisTarget, { kind: 'sentinel' }>;

/** What one Sentinel said of the master. */
type Answer =
  | { kind: 'primary'; address: string }
  | { kind: 'unknown-master' }
  | { kind: 'refused'; message: string }
  | { kind: 'unreachable'; message: string };

const ASK_TIMEOUT_MS = 2000;
const RETRY_MS = 1000;
/** Say we are waiting after this long, then every this long again. */
const WAITING_LOG_MS = 2000;

/** Resolves once a Sentinel of `target` names the primary; throws ConfigError when they refuse us or know no such master. */
export async function checkSentinels(target: SentinelTarget, url: string, logger: Logger): Promise<string> {
  const began = Date.now();
  let logged = began;
  for (;;) {
    const answers = await Promise.all(target.sentinels.map((sentinel) => ask(sentinel, target)));
    const primary = answers.find((answer) => answer.kind === 'primary');
    if (primary !== undefined) return primary.address;
    const refused = answers.find((answer) => answer.kind === 'refused');
    if (refused !== undefined) {
      throw new ConfigError(
        `the Sentinels of ${redactRedisUrl(url)} refused our credentials (${refused.message}): check sentinel_username and sentinel_password`,
      );
    }
    if (answers.some((answer) => answer.kind === 'unknown-master')) {
      throw new ConfigError(
        `no Sentinel of ${redactRedisUrl(url)} knows a master named ${JSON.stringify(target.masterName)} (SENTINEL get-master-addr-by-name answered nil)`,
      );
    }
    if (Date.now() - logged >= WAITING_LOG_MS) {
      logged = Date.now();
      const reasons = answers.map((answer, i) => `${address(target.sentinels[i]!)}: ${(answer as { message: string }).message}`);
      logger.warn({ event: 'redis_waiting', sentinels: reasons, waitedMs: logged - began }, `waiting for a Sentinel to answer (${reasons.join('; ')})`);
    }
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

async function ask(sentinel: RedisEndpoint, target: SentinelTarget): Promise<Answer> {
  const client = new Redis({
    host: sentinel.host,
    port: sentinel.port,
    username: target.sentinelUsername,
    password: target.sentinelPassword,
    tls: target.tls ? {} : undefined,
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableReadyCheck: false,
    connectTimeout: ASK_TIMEOUT_MS,
    commandTimeout: ASK_TIMEOUT_MS,
  });
  // A refused AUTH or a refused connection reaches us as an 'error' event; connect() then fails with only "Connection is closed."
  let connectionError: string | undefined;
  client.on('error', (error: Error) => {
    connectionError ??= error.message;
  });
  try {
    await client.connect();
    const reply = (await client.call('SENTINEL', 'get-master-addr-by-name', target.masterName)) as [string, string] | null;
    return reply === null ? { kind: 'unknown-master' } : { kind: 'primary', address: `${reply[0]}:${reply[1]}` };
  } catch (error) {
    const message = connectionError ?? (error as Error).message;
    return REFUSED.test(message) ? { kind: 'refused', message } : { kind: 'unreachable', message };
  } finally {
    client.disconnect();
  }
}

function address({ host, port }: RedisEndpoint): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
