// The wire shapes of the interface (spec section 2), built from records.
// Pure functions: what a status shows is decided here and nowhere else.
import type { Port } from '../native/scanner.js';
import type { FailReason, ScanRecord } from '../model/scan-record.js';
import type { ScanType } from './scan-types.js';

/** Live facts of a queued or running scan that the record does not hold. */
export interface InFlightFacts {
  queuePosition: number;
  etaSeconds: number;
}

export interface ScanQueuedBody {
  ip: string;
  scan_type: ScanType;
  status: 'queued' | 'running';
  eta_seconds: number;
  chunks_complete?: number;
  total_chunks?: number;
}

export interface InFlightBody {
  ip: string;
  scan_type: ScanType;
  status: 'queued' | 'running';
  queue_position: number;
  chunks_complete: number;
  total_chunks: number;
  eta_seconds: number;
}

export interface FinishedBody {
  ip: string;
  scan_type: ScanType;
  status: 'complete' | 'incomplete';
  ports_open: Port[];
  ports_filtered: Port[];
  service_banners: Record<string, string>;
  ptr_record: string | null;
  duration_ms: number;
  completed_at: number;
  expires_at: number;
  partial?: true;
  chunks_complete?: number;
  total_chunks?: number;
}

export interface FailedBody {
  ip: string;
  scan_type: ScanType;
  status: 'failed';
  chunks_complete: number;
  total_chunks: number;
  fail_reason: FailReason;
}

export interface NoneBody {
  ip: string;
  scan_type: ScanType;
  status: 'none';
}

export type ScanResultBody = NoneBody | InFlightBody | FinishedBody | FailedBody;

export interface ProgressBody extends Omit<InFlightBody, 'eta_seconds'> {
  ports_open: Port[];
  filtered_count: number;
}

const toSeconds = (ms: number): number => Math.floor(ms / 1000);

export function noneBody(ip: string, scanType: ScanType): NoneBody {
  return { ip, scan_type: scanType, status: 'none' };
}

/** The body of a POST that started or joined `record`. */
export function scanQueuedBody(record: ScanRecord, coalesced: boolean, etaSeconds: number): ScanQueuedBody {
  const body: ScanQueuedBody = {
    ip: record.ip,
    scan_type: record.scanType,
    status: record.status === 'running' ? 'running' : 'queued',
    eta_seconds: etaSeconds,
  };
  if (coalesced) {
    body.chunks_complete = record.chunksComplete;
    body.total_chunks = record.totalChunks;
  }
  return body;
}

export function inFlightBody(record: ScanRecord, facts: InFlightFacts): InFlightBody {
  return {
    ip: record.ip,
    scan_type: record.scanType,
    status: record.status === 'running' ? 'running' : 'queued',
    queue_position: facts.queuePosition,
    chunks_complete: record.chunksComplete,
    total_chunks: record.totalChunks,
    eta_seconds: facts.etaSeconds,
  };
}

/** The payload of scan:progress: a running scan, so nothing is ahead of it. */
export function progressBody(record: ScanRecord): ProgressBody {
  const { eta_seconds: _eta, ...inFlight } = inFlightBody(record, { queuePosition: 0, etaSeconds: 0 });
  return {
    ...inFlight,
    ports_open: [...record.portsOpen].sort((a, b) => a.port - b.port),
    filtered_count: record.portsFiltered.length,
  };
}

/** The body of a scan that ended: complete, incomplete or failed. */
export function finalBody(record: ScanRecord): FinishedBody | FailedBody {
  if (record.status === 'failed') {
    return {
      ip: record.ip,
      scan_type: record.scanType,
      status: 'failed',
      chunks_complete: record.chunksComplete,
      total_chunks: record.totalChunks,
      fail_reason: record.failReason ?? 'scanner_error',
    };
  }
  const banners: Record<string, string> = {};
  for (const port of record.portsOpen) {
    if (port.banner !== null) banners[String(port.port)] = port.banner;
  }
  const body: FinishedBody = {
    ip: record.ip,
    scan_type: record.scanType,
    status: record.status === 'incomplete' ? 'incomplete' : 'complete',
    ports_open: record.portsOpen,
    ports_filtered: record.portsFiltered,
    service_banners: banners,
    ptr_record: record.ptrRecord,
    duration_ms: record.durationMs ?? 0,
    completed_at: toSeconds(record.completedAt ?? 0),
    expires_at: toSeconds(record.expiresAt ?? 0),
  };
  if (record.status === 'incomplete') {
    body.partial = true;
    body.chunks_complete = record.chunksComplete;
    body.total_chunks = record.totalChunks;
  }
  return body;
}
