// Nothing accepted is lost: scans a previous process left queued or running
// are recorded as failed (`interrupted`) when the service starts, so every
// caller polling or owed a webhook learns how they ended.
import type { Logger } from 'pino';

import type { Clock } from '../model/clock.js';
import type { ResultStore } from '../store/result-store.js';
import { RESULT_TTL_MS } from './scan-finisher.js';

/** Ends every unfinished record in `store` as interrupted. */
export async function recoverInterrupted(store: ResultStore, clock: Clock, logger: Logger): Promise<void> {
  for (const record of await store.unfinished()) {
    record.status = 'failed';
    record.failReason = 'interrupted';
    record.completedAt = clock.now();
    record.expiresAt = record.completedAt + RESULT_TTL_MS;
    await store.put(record);
    logger.warn({ event: 'scan_interrupted', scanId: record.id, ip: record.ip, scanType: record.scanType }, 'scan was interrupted by a restart');
  }
}
