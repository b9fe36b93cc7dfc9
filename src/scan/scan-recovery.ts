// Nothing accepted is lost: scans a previous process left queued or running
// are taken up when the service starts. A queued scan is queued again; a
// running one resumes from the chunks it saved (the runner scans the rest
// in what is left of its budget, or ends it `incomplete` with what it
// found). Every caller polling or owed a webhook learns how it ended.
import type { Logger } from 'pino';

import type { ScanRecord } from '../model/scan-record.js';
import type { ResultStore } from './result-store.js';
import { applySavedChunks, type ScanCheckpoints } from './scan-checkpoints.js';

/**
 * Hands every unfinished record of `store` to `takeUp` (running ones first,
 * then queued ones in the order they were queued), its saved progress
 * applied, and forgets checkpoints no unfinished scan needs.
 */
export async function recoverUnfinished(store: ResultStore, checkpoints: ScanCheckpoints, takeUp: (record: ScanRecord) => void, logger: Logger): Promise<void> {
  const unfinished = await store.unfinished();
  await checkpoints.keepOnly(new Set(unfinished.map((record) => record.id)));
  const running = (record: ScanRecord): number => (record.startedAt === null ? 1 : 0);
  unfinished.sort((a, b) => running(a) - running(b) || a.queuedAt - b.queuedAt);
  for (const record of unfinished) {
    // A scan counted as running had started; one whose start was never stored runs from the start.
    if (record.startedAt !== null) applySavedChunks(record, await checkpoints.load(record.id));
    record.status = record.startedAt === null ? 'queued' : 'running';
    logger.info(
      { event: 'scan_recovered', scanId: record.id, ip: record.ip, scanType: record.scanType, status: record.status, chunksComplete: record.chunksComplete },
      record.status === 'running' ? 'scan left running by a restart: it resumes' : 'scan left queued by a restart: it is queued again',
    );
    takeUp(record);
  }
}
