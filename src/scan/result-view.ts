// The wire shapes of the interface (spec section 2), built from records.
// Pure functions: what a status shows is decided here and nowhere else.
import type { ScanQueued } from '../api/scan-queued.js';
import type { ScanResult, ScanResultFinal, ScanResultInFlight, ScanResultNone } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { SseProgress } from '../api/sse-events.js';
import type { Vantage } from '../api/vantages.js';
import { isFinal, pathEtaSeconds, type ScanRecord } from '../model/scan-record.js';
import { portDifferences, regionChunk, unionPorts } from '../model/vantage-views.js';

/** Live facts of a queued or running scan that the record does not hold. */
export interface InFlightFacts {
  queuePosition: number;
  etaSeconds: number;
}

const toSeconds = (ms: number): number => Math.floor(ms / 1000);

export function noneBody(ip: string, scanType: ScanType): ScanResultNone {
  return { ip, scan_type: scanType, status: 'none' };
}

/**
 * The body of a POST that started or joined `record`: a scan in flight, so
 * with its chunk counters (spec 2.1, fact 2), whether the request started it
 * or joined it.
 */
export function scanQueuedBody(record: ScanRecord, etaSeconds: number): ScanQueued {
  return {
    ip: record.ip,
    scan_type: record.scanType,
    status: record.status === 'running' ? 'running' : 'queued',
    eta_seconds: etaSeconds,
    chunks_complete: record.chunksComplete,
    total_chunks: record.totalChunks,
    ...(record.regions === undefined ? {} : { regions: record.regions }),
  };
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
    ...vantagesInFlight(record),
  };
}

/** A multi-region scan's regions and each one's progress; nothing for a scan from one place. */
function vantagesInFlight(record: ScanRecord): Pick<ScanResultInFlight, 'regions' | 'vantages'> {
  if (record.vantages === undefined) return {};
  const vantages = record.vantages.map((vantage) => ({
    region: vantage.region,
    chunks_complete: vantage.chunksComplete,
    total_chunks: vantage.totalChunks,
    ports_open: [...vantage.portsOpen].sort((a, b) => a.port - b.port),
    filtered_count: vantage.portsFiltered.length,
  }));
  return { regions: record.regions, vantages };
}

/**
 * The payload of scan:progress: a running scan, so nothing is ahead of it;
 * `chunkIndex`: the chunk just verified whole; `now` (Unix ms): when it is
 * sent, for the eta the scan's path gives, if it gave one.
 */
export function progressBody(record: ScanRecord, chunkIndex?: number, now?: number): SseProgress {
  const { eta_seconds: _eta, ...inFlight } = inFlightBody(record, { queuePosition: 0, etaSeconds: 0 });
  const union =
    record.vantages === undefined
      ? { open: [...record.portsOpen].sort((a, b) => a.port - b.port), filtered: record.portsFiltered }
      : unionPorts(record.vantages);
  const body: SseProgress = { ...inFlight, ports_open: union.open, filtered_count: union.filtered.length };
  if (chunkIndex !== undefined && record.vantages !== undefined) {
    const { region, local } = regionChunk(record.scanType, chunkIndex);
    body.chunk_index = local;
    body.region = record.vantages[region]?.region;
  } else if (chunkIndex !== undefined) body.chunk_index = chunkIndex;
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
    ...vantageViews(record),
  };
}

/** A finished multi-region scan's regions, each one's view and the ports seen differently; nothing for a scan from one place. */
function vantageViews(record: ScanRecord): Pick<ScanResultFinal, 'regions' | 'vantages' | 'differences'> {
  if (record.vantages === undefined) return {};
  const start = record.startedAt ?? record.queuedAt;
  const vantages = record.vantages.map(
    (vantage): Vantage => ({
      region: vantage.region,
      status: vantage.status ?? 'failed',
      ...(vantage.failReason === undefined ? {} : { fail_reason: vantage.failReason }),
      duration_ms: vantage.lastAt === null ? 0 : Math.max(0, vantage.lastAt - start),
      chunks_complete: vantage.chunksComplete,
      total_chunks: vantage.totalChunks,
      ports_open: vantage.portsOpen,
      ports_filtered: vantage.portsFiltered,
    }),
  );
  return { regions: record.regions, vantages, differences: portDifferences(record.vantages, record.scanType) };
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
      return {
        ip,
        scan_type,
        status: 'failed',
        chunks_complete,
        total_chunks,
        fail_reason: record.failReason ?? 'scanner_error',
        ...where,
        ...vantageViews(record),
      };
    case 'incomplete':
      return { ip, scan_type, status: 'incomplete', ...findings(record), partial: true, chunks_complete, total_chunks, ...where };
    default:
      return { ip, scan_type, status: 'complete', ...findings(record), ...where };
  }
}
