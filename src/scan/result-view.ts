// The wire shapes of the interface (spec section 2), built from records.
// Pure functions: what a status shows is decided here and nowhere else.
import type { ScanQueued } from '../api/scan-queued.js';
import type { ScanResult, ScanResultFinal, ScanResultInFlight, ScanResultNone } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { SseProgress } from '../api/sse-events.js';
import { isFinal, pathEtaSeconds, type ScanRecord } from '../model/scan-record.js';

/** Live facts of a queued or running scan that the record does not hold. */
export interface InFlightFacts {
  queuePosition: number;
  etaSeconds: number;
}

const toSeconds = (ms: number): number => Math.floor(ms / 1000);

export function noneBody(ip: string, scanType: ScanType): ScanResultNone {
  return { ip, scan_type: scanType, status: 'none' };
}

/** The body of a POST that started or joined `record`. */
export function scanQueuedBody(record: ScanRecord, coalesced: boolean, etaSeconds: number): ScanQueued {
  const body: ScanQueued = {
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

export function inFlightBody(record: ScanRecord, facts: InFlightFacts): ScanResultInFlight {
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

/**
 * The payload of scan:progress: a running scan, so nothing is ahead of it;
 * `chunkIndex`: the chunk just verified whole; `now` (Unix ms): when it is
 * sent, for the eta the scan's path gives, if it gave one.
 */
export function progressBody(record: ScanRecord, chunkIndex?: number, now?: number): SseProgress {
  const { eta_seconds: _eta, ...inFlight } = inFlightBody(record, { queuePosition: 0, etaSeconds: 0 });
  const body: SseProgress = {
    ...inFlight,
    ports_open: [...record.portsOpen].sort((a, b) => a.port - b.port),
    filtered_count: record.portsFiltered.length,
  };
  if (chunkIndex !== undefined) body.chunk_index = chunkIndex;
  const eta = now === undefined ? undefined : pathEtaSeconds(record, now);
  if (eta !== undefined) body.eta_seconds = eta;
  return body;
}

/** What a scan that ran to its end found, in the order the body lists it after `status`. */
function findings(record: ScanRecord) {
  const banners: Record<string, string> = {};
  for (const port of record.portsOpen) {
    if (port.banner !== null) banners[String(port.port)] = port.banner;
  }
  return {
    ports_open: record.portsOpen,
    ports_filtered: record.portsFiltered,
    service_banners: banners,
    ptr_record: record.ptrRecord,
    duration_ms: record.durationMs ?? 0,
    completed_at: toSeconds(record.completedAt ?? 0),
    expires_at: toSeconds(record.expiresAt ?? 0),
    ...(record.severity === undefined ? {} : { severity: record.severity }),
    ...(record.changes === undefined ? {} : { changes: record.changes }),
  };
}

/** Whether a GET body is a finished scan's. */
export function isFinalBody(body: ScanResult): body is ScanResultFinal {
  return body.status !== 'none' && isFinal(body.status);
}

/** The body of a scan that ended: complete, incomplete or failed. */
export function finalBody(record: ScanRecord): ScanResultFinal {
  const { ip, scanType: scan_type, chunksComplete: chunks_complete, totalChunks: total_chunks } = record;
  const where = record.region === undefined ? {} : { region: record.region };
  switch (record.status) {
    case 'failed':
      return { ip, scan_type, status: 'failed', chunks_complete, total_chunks, fail_reason: record.failReason ?? 'scanner_error', ...where };
    case 'incomplete':
      return { ip, scan_type, status: 'incomplete', ...findings(record), partial: true, chunks_complete, total_chunks, ...where };
    default:
      return { ip, scan_type, status: 'complete', ...findings(record), ...where };
  }
}
