// A scan as the service keeps it: one record per (ip, scan type), stored
// when it is queued, as it progresses and when it ends.
import type { Port } from '../native/scanner.js';
import type { ScanType } from '../scan/scan-types.js';

export type ScanStatus = 'queued' | 'running' | 'complete' | 'incomplete' | 'failed';
export type FinalStatus = Extract<ScanStatus, 'complete' | 'incomplete' | 'failed'>;

/**
 * Why a scan failed. `interrupted`: the service stopped (crash, restart or
 * shutdown) before the scan ended; `unreachable`: this server has no route
 * to the address; `scanner_error`: any other local error kept the scan from
 * running (the log has the system error).
 */
export type FailReason = 'interrupted' | 'unreachable' | 'scanner_error';
export const FAIL_REASONS: readonly FailReason[] = ['interrupted', 'unreachable', 'scanner_error'];

/** How a scan was started: which interface asked for it. */
export type ScanOrigin = 'v1' | 'v2' | 'mcp';

export interface ScanRecord {
  /** Unique per scan run, so a stored record is never confused with a newer run. */
  id: string;
  ip: string;
  scanType: ScanType;
  status: ScanStatus;
  origin: ScanOrigin;
  /** Unix milliseconds. */
  queuedAt: number;
  startedAt: number | null;
  completedAt: number | null;
  expiresAt: number | null;
  durationMs: number | null;
  chunksComplete: number;
  totalChunks: number;
  portsOpen: Port[];
  portsFiltered: Port[];
  ptrRecord: string | null;
  failReason: FailReason | null;
}

export function isFinal(status: ScanStatus): status is FinalStatus {
  return status === 'complete' || status === 'incomplete' || status === 'failed';
}
