// Scan records for tests of what stores them.
import { randomUUID } from 'node:crypto';

import type { ScanType } from '../../src/api/scan-type.js';
import { queuedRecord as newQueuedRecord, type ScanRecord } from '../../src/model/scan-record.js';

/** A freshly queued record of (ip, scanType) with a new id, `changes` applied. */
export function queuedRecord(ip: string, scanType: ScanType = 'fast', changes: Partial<ScanRecord> = {}): ScanRecord {
  return { ...newQueuedRecord(randomUUID(), ip, scanType, 'v1', Date.now()), ...changes };
}
