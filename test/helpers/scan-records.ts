// Scan records for tests of what stores them.
import { randomUUID } from 'node:crypto';

import { SCAN_PROFILES, type ScanType } from '../../src/api/scan-type.js';
import { queuedRecord as newQueuedRecord, type ScanRecord } from '../../src/model/scan-record.js';

/** A freshly queued record of (ip, scanType) with a new id, `changes` applied. */
export function queuedRecord(ip: string, scanType: ScanType = 'fast', changes: Partial<ScanRecord> = {}): ScanRecord {
  return { ...newQueuedRecord(randomUUID(), ip, scanType, 'v1', Date.now()), ...changes };
}

/** A complete record of (ip, scanType): two open ports, one filtered, a PTR name; `changes` applied. */
export function completeRecord(ip: string, scanType: ScanType = 'fast', changes: Partial<ScanRecord> = {}): ScanRecord {
  const now = Date.now();
  const { totalChunks } = SCAN_PROFILES[scanType];
  return queuedRecord(ip, scanType, {
    status: 'complete',
    startedAt: now + 250,
    completedAt: now + 4000,
    expiresAt: now + 86_404_000,
    durationMs: 3750,
    chunksComplete: totalChunks,
    totalChunks,
    portsOpen: [
      { port: 22, state: 'open', service: 'ssh', banner: 'SSH-2.0-OpenSSH_9.6' },
      { port: 443, state: 'open', service: 'https', banner: null },
    ],
    portsFiltered: [{ port: 25, state: 'filtered', service: 'smtp', banner: null }],
    ptrRecord: 'host.example.net',
    ...changes,
  });
}
