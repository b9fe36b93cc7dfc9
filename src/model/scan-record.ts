// A scan as the service keeps it: one record per (ip, scan type), stored
// when it is queued, as it progresses and when it ends.
import type { FailReason } from '../api/fail-reason.js';
import type { Port } from '../api/port.js';
import type { ScanChanges } from '../api/scan-changes.js';
import { SCAN_PROFILES, type ScanType } from '../api/scan-type.js';
import type { SeverityLevel } from '../api/severity-levels.js';
import { newVantages, type VantageRecord } from './vantage-views.js';

export type ScanStatus = 'queued' | 'running' | 'complete' | 'incomplete' | 'failed';
export type FinalStatus = Extract<ScanStatus, 'complete' | 'incomplete' | 'failed'>;

/** How a scan was started: which interface asked for it (`page`: the page's form, without JavaScript). */
export type ScanOrigin = 'v1' | 'v2' | 'mcp' | 'page';

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
  /** The cluster region whose scanner nodes run it; absent in a single process. */
  region?: string;
  /**
   * A multi-region scan's regions, sorted: each scans the whole range from
   * its own scanner nodes (vantage-views.ts). Absent for a scan from one place.
   */
  regions?: string[];
  /** What a multi-region scan was asked for (`all`, or the sorted list): its key beside (ip, scan type). */
  regionsAsked?: string;
  /** Each region's view of a multi-region scan. */
  vantages?: VantageRecord[];
  /**
   * When the scanner expects the scan to end (Unix ms), from its target's
   * path (the pace, the round trip and the path's loss) as of its last
   * finished chunk; absent until the target has answered.
   */
  pathDoneAt?: number;
  /** A finished scan's highest severity (null: nothing open); absent when facts are off. */
  severity?: SeverityLevel | null;
  /** A finished scan's changes since the last one (null: none remembered); absent when fingerprints are off. */
  changes?: ScanChanges | null;
}

/** Seconds until `record` is expected to end by its path, as of `now`; undefined when the path has not said. */
export function pathEtaSeconds(record: ScanRecord, now: number): number | undefined {
  return record.pathDoneAt === undefined ? undefined : Math.max(0, Math.ceil((record.pathDoneAt - now) / 1000));
}

export function isFinal(status: ScanStatus): status is FinalStatus {
  return status === 'complete' || status === 'incomplete' || status === 'failed';
}

/** Where a scan looks from: one region (or the one process), or several at once. */
export type ScanPlace = { region?: string } | { regions: string[]; regionsAsked: string };

/** Makes `record` (just queued) a scan from `place`: a multi-region scan has each region's chunks after the one before. */
export function placeRecord(record: ScanRecord, place: ScanPlace): ScanRecord {
  if (!('regions' in place)) return { ...record, ...place };
  const { regions, regionsAsked } = place;
  return { ...record, regions, regionsAsked, vantages: newVantages(regions, record.scanType), totalChunks: record.totalChunks * regions.length };
}

/** The record of a scan of (ip, scanType) just queued, as `id`, at `queuedAt` (Unix ms). */
export function queuedRecord(id: string, ip: string, scanType: ScanType, origin: ScanOrigin, queuedAt: number): ScanRecord {
  return {
    id,
    ip,
    scanType,
    status: 'queued',
    origin,
    queuedAt,
    startedAt: null,
    completedAt: null,
    expiresAt: null,
    durationMs: null,
    chunksComplete: 0,
    totalChunks: SCAN_PROFILES[scanType].totalChunks,
    portsOpen: [],
    portsFiltered: [],
    ptrRecord: null,
    failReason: null,
  };
}
