// The primary's maxmemory-policy, checked when a node starts: a policy that
// evicts keys (allkeys-*, volatile-*) would, once Redis is full, silently
// drop BullMQ's queued jobs, scans in flight and stored results. BullMQ
// needs `noeviction`, so such a primary stops the start (exit 2), with why.
import type { Redis } from 'ioredis';

import { ConfigError } from '../config/config-sources.js';

/** The primary's maxmemory-policy: CONFIG GET, or INFO where CONFIG is renamed or not allowed. */
export async function evictionPolicy(redis: Redis): Promise<string> {
  try {
    const reply = (await redis.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];
    if (reply[1] !== undefined) return reply[1];
  } catch {
    // CONFIG renamed or disabled (managed Redis), or not allowed for our user: INFO says it too.
  }
  const info = await redis.info('memory');
  const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
  if (policy === undefined) throw new Error('the Redis primary says neither by CONFIG GET nor by INFO memory what its maxmemory-policy is');
  return policy;
}

/** Throws ConfigError when the primary may evict keys. */
export async function refuseEviction(redis: Redis): Promise<void> {
  const policy = await evictionPolicy(redis);
  if (/^(allkeys|volatile)-/.test(policy)) {
    throw new ConfigError(
      `the Redis primary's maxmemory-policy is ${policy}: when Redis is full it evicts keys, and with them queued jobs (BullMQ), scans in flight and results, silently; set maxmemory-policy noeviction (Redis then refuses writes when full, and we answer 503)`,
    );
  }
}
