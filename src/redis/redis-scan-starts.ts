// Starting a scan across the cluster is one atomic step in Redis: join the
// scan in flight for (ip, scan type) on any API node, or else charge the
// scan limits all or none and record the new scan as queued and in flight.
// Its end clears the in-flight mark (redis-scan-progress.ts).
import type { Redis } from 'ioredis';

import type { RateDecision } from '../limits/rate/gcra.js';
import type { RateCharge } from '../limits/rate/rate-limit-store.js';
import type { ScanRecord } from '../model/scan-record.js';
import { decisionsOf, GCRA_LUA } from './gcra-script.js';
import { inFlightKey, limitKey, resultKey, SCAN_STATE_TTL_MS, scanKey, UNFINISHED_KEY } from './redis-keys.js';

/**
 * KEYS: in-flight mark, record, unfinished set, scan state, then the limit
 * keys. ARGV: scan id, record JSON, region, chunks in all, queued at (ms),
 * scan state lifetime (ms), then window ms and max of each limit. Replies
 * `joined` and the scan id in flight, or `refused`/`started` and the GCRA
 * now/before list. The scan's state starts at event 1 (scan:queued).
 */
const START_SCRIPT = `${GCRA_LUA}
local current = redis.call('GET', KEYS[1])
if current then return { 'joined', current } end
local check = gcra_check(KEYS, 5, ARGV, 7)
local reply = gcra_reply(check)
if not check.allowed then
  table.insert(reply, 1, 'refused')
  return reply
end
gcra_commit(check)
redis.call('SET', KEYS[1], ARGV[1])
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], KEYS[2])
redis.call('HSET', KEYS[4], 'region', ARGV[3], 'total', ARGV[4], 'queuedAt', ARGV[5], 'status', 'queued', 'done', 0, 'seq', 1)
redis.call('PEXPIRE', KEYS[4], ARGV[6])
table.insert(reply, 1, 'started')
return reply
`;

export type StartOutcome = { kind: 'joined'; scanId: string } | { kind: 'refused'; decisions: RateDecision[] } | { kind: 'started'; decisions: RateDecision[] };

interface StartCommands {
  selfscanStart(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<string[]>;
}

export class RedisScanStarts {
  private readonly commands: StartCommands;

  constructor(redis: Redis) {
    redis.defineCommand('selfscanStart', { lua: START_SCRIPT });
    this.commands = redis as unknown as StartCommands;
  }

  /**
   * Joins the scan in flight for `record`'s (ip, scan type), or charges
   * `charges` and, when all allow it, stores `record` (queued) as the scan in flight.
   */
  async start(record: ScanRecord, charges: readonly RateCharge[]): Promise<StartOutcome> {
    const keys = [
      inFlightKey(record.scanType, record.ip),
      resultKey(record.scanType, record.ip),
      UNFINISHED_KEY,
      scanKey(record.id),
      ...charges.map((c) => limitKey(c.key)),
    ];
    const state = [record.id, JSON.stringify(record), record.region ?? '', record.totalChunks, record.queuedAt, SCAN_STATE_TTL_MS];
    const args = [...state, ...charges.flatMap(({ rule }) => [rule.windowSeconds * 1000, rule.max])];
    const [kind, ...rest] = await this.commands.selfscanStart(keys.length, ...keys, ...args);
    if (kind === 'joined') return { kind, scanId: rest[0]! };
    return { kind: kind === 'started' ? 'started' : 'refused', decisions: decisionsOf(charges, rest) };
  }
}
