// Starting a scan across the cluster is one atomic step in Redis: join the
// scan in flight for (ip, scan type) on any API node, or else charge the
// scan limits all or none and record the new scan as queued and in flight.
// Its end clears the in-flight mark (redis-scan-progress.ts).
import type { Redis } from 'ioredis';

import type { RateDecision } from '../limits/rate/gcra.js';
import type { RateCharge } from '../limits/rate/rate-limit-store.js';
import type { ScanRecord } from '../model/scan-record.js';
import { decisionsOf } from './gcra-decisions.js';
import { defineLua } from './lua-scripts.js';
import { inFlightKey, limitKey, resultKey, SCAN_STATE_TTL_MS, scanKey, UNFINISHED_KEY } from './redis-keys.js';

export type StartOutcome = { kind: 'joined'; scanId: string } | { kind: 'refused'; decisions: RateDecision[] } | { kind: 'started'; decisions: RateDecision[] };

/** lua/scan-start.lua: four keys, then one per limit charged. */
interface StartCommands {
  selfscanStart(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<string[]>;
}

export class RedisScanStarts {
  private readonly commands: StartCommands;

  constructor(redis: Redis) {
    defineLua(redis, 'selfscanStart', 'scan-start.lua');
    this.commands = redis as unknown as StartCommands;
  }

  /**
   * Joins the scan in flight for `record`'s (ip, scan type), or charges
   * `charges` and, when all allow it, stores `record` (queued) as the scan in flight.
   */
  async start(record: ScanRecord, charges: readonly RateCharge[]): Promise<StartOutcome> {
    const keys = [
      inFlightKey(record.scanType, record.ip, record.regionsAsked),
      resultKey(record.scanType, record.ip, record.regionsAsked),
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
