// Starting a scan across the cluster is one atomic step in Redis: join the
// scan in flight for (ip, scan type) on any API node, or else charge the
// scan limits all or none and record the new scan as queued and in flight.
// Its end clears the in-flight mark (redis-scan-progress.ts). A start a
// failover may have lost is written again (restore) on the new primary.
import type { Redis } from 'ioredis';

import type { RateDecision } from '../limits/rate/gcra.js';
import type { RateCharge } from '../limits/rate/rate-limit-store.js';
import type { ScanRecord } from '../model/scan-record.js';
import { decisionsOf } from './gcra-decisions.js';
import { defineLua } from './lua-scripts.js';
import { inFlightKey, limitKey, resultKey, SCAN_STATE_TTL_MS, scanKey, UNFINISHED_KEY } from './redis-keys.js';

/** What restore found: the start still there, another scan of (ip, scan type) in flight instead, or the start written again. */
export type RestoreOutcome = 'kept' | 'superseded' | 'restored';

export type StartOutcome = { kind: 'joined'; scanId: string } | { kind: 'refused'; decisions: RateDecision[] } | { kind: 'started'; decisions: RateDecision[] };

/** lua/scan-start.lua: four keys, then one per limit charged; lua/scan-restore-4.lua: the same four. */
interface StartCommands {
  selfscanStart(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<string[]>;
  selfscanRestore(...keysAndArgs: (string | number)[]): Promise<RestoreOutcome>;
}

/** The keys and arguments both scripts take first: where the scan is recorded, and what. */
function recordKeysAndState(record: ScanRecord): { keys: string[]; state: (string | number)[] } {
  return {
    keys: [
      inFlightKey(record.scanType, record.ip, record.regionsAsked),
      resultKey(record.scanType, record.ip, record.regionsAsked),
      UNFINISHED_KEY,
      scanKey(record.id),
    ],
    state: [record.id, JSON.stringify(record), record.region ?? '', record.totalChunks, record.queuedAt, SCAN_STATE_TTL_MS],
  };
}

export class RedisScanStarts {
  private readonly commands: StartCommands;

  constructor(redis: Redis) {
    defineLua(redis, 'selfscanStart', 'scan-start.lua');
    defineLua(redis, 'selfscanRestore', 'scan-restore-4.lua');
    this.commands = redis as unknown as StartCommands;
  }

  /**
   * Joins the scan in flight for `record`'s (ip, scan type), or charges
   * `charges` and, when all allow it, stores `record` (queued) as the scan in flight.
   */
  async start(record: ScanRecord, charges: readonly RateCharge[]): Promise<StartOutcome> {
    const { keys: recordKeys, state } = recordKeysAndState(record);
    const keys = [...recordKeys, ...charges.map((c) => limitKey(c.key))];
    const args = [...state, ...charges.flatMap(({ rule }) => [rule.windowSeconds * 1000, rule.max])];
    const [kind, ...rest] = await this.commands.selfscanStart(keys.length, ...keys, ...args);
    if (kind === 'joined') return { kind, scanId: rest[0]! };
    return { kind: kind === 'started' ? 'started' : 'refused', decisions: decisionsOf(charges, rest) };
  }

  /** Records `record` (a start this node answered) again as queued and in flight, unless its state or another scan of (ip, scan type) in flight is there. */
  restore(record: ScanRecord): Promise<RestoreOutcome> {
    const { keys, state } = recordKeysAndState(record);
    return this.commands.selfscanRestore(...keys, ...state);
  }
}
