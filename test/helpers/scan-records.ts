// Scan records for tests of what stores them.
import { randomUUID } from 'node:crypto';

import type { ScanType } from '../../src/api/scan-type.js';
import type { ScanRecord } from '../../src/model/scan-record.js';

/** A freshly queued record of (ip, scanType), with `changes` applied. */
export function queuedRecord(ip: string, scanType: ScanType = 'fast', changes: Partial<ScanRecord> = {}): ScanRecord {
  return {
    id: randomUUID(),
    ip,
    scanType,
    status: 'queued',
    origin: 'v1',
    queuedAt: Date.now(),
    startedAt: null,
    completedAt: null,
    expiresAt: null,
    durationMs: null,
    chunksComplete: 0,
    totalChunks: scanType === 'deep' ? 64 : 4,
    portsOpen: [],
    portsFiltered: [],
    ptrRecord: null,
    failReason: null,
    ...changes,
  };
}
