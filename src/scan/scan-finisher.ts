// Ends a scan, in one process or on any node of a cluster: settles its
// record from how the scan went, records the end where the scan's state
// lives (stored before anyone hears of it, and only once: a finish redone
// after a crash finds it ended), logs the scan's one line and makes the
// webhooks owed due.
import type { Logger } from 'pino';

import type { FailReason } from '../api/fail-reason.js';
import type { ScanResultFinal } from '../api/scan-result.js';
import type { ScanExposure } from '../exposure/scan-exposure.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../model/clock.js';
import type { ScanRecord } from '../model/scan-record.js';
import { settleVantages, unionPorts } from '../model/vantage-views.js';
import type { ScanSummary } from '../native/scanner.js';
import type { ResultStore } from './result-store.js';
import { finalBody } from './result-view.js';

export const RESULT_TTL_MS = 24 * 60 * 60 * 1000;

/** How a scan went: the scanner's summary, its error, or a reason it never ran to the end. */
export type ScanOutcome = { summary: Pick<ScanSummary, 'status'> } | { error: unknown } | { failReason: FailReason };

const UNREACHABLE_CODES = new Set(['ENETUNREACH', 'EHOSTUNREACH']);

/** Where a scan's end is recorded and announced to its watchers. */
export interface ScanEnds {
  /**
   * Stores `record` (final) as the end of its scan and announces `body`,
   * unless the scan had ended already or a newer scan holds its result:
   * then false, and nothing changes.
   */
  end(record: ScanRecord, body: ScanResultFinal): Promise<boolean>;
}

export interface ScanFinisherOptions {
  ends: ScanEnds;
  /** Rates a finished scan and tells what changed since the last; absent: neither. */
  exposure?: ScanExposure;
  /** Where a scan ended elsewhere is read, for the webhooks it owes. */
  store: Pick<ResultStore, 'get'>;
  webhooks: { scanFinished(record: ScanRecord): Promise<void> };
  clock: Clock;
  logger: Logger;
  /** Counts scans ended and their durations; absent: nothing counted. */
  metrics?: Pick<Metrics, 'scanFinished'>;
}

export class ScanFinisher {
  constructor(private readonly options: ScanFinisherOptions) {}

  /**
   * Makes `record` final (it does not change afterwards) and ends its scan;
   * when it had ended already, the webhooks its stored end owes are made due
   * again. Rejects when the webhooks could not be made due.
   */
  async finish(record: ScanRecord, outcome: ScanOutcome, ptrRecord: string | null): Promise<void> {
    const { ends, store, webhooks, exposure, clock, logger } = this.options;
    settleRecord(record, outcome, ptrRecord, clock.now(), logger);
    const fingerprint = exposure !== undefined && record.status !== 'failed' ? await exposure.assess(record) : null;
    let owed: ScanRecord | null = record;
    if (await ends.end(record, finalBody(record))) {
      logScanFinished(logger, record);
      this.options.metrics?.scanFinished(record);
      if (fingerprint !== null) await exposure!.remember(record, fingerprint);
    } else owed = await store.get(record.ip, record.scanType, record.regionsAsked).then((stored) => (stored?.id === record.id ? stored : null));
    if (owed !== null) await webhooks.scanFinished(owed);
  }
}

/** Makes `record` final from how the scan went: status, sorted lists, PTR, times, 24 h expiry. */
export function settleRecord(record: ScanRecord, outcome: ScanOutcome, ptrRecord: string | null, now: number, logger: Logger): void {
  if ('summary' in outcome && outcome.summary.status !== 'cancelled') {
    record.status = outcome.summary.status;
  } else {
    record.status = 'failed';
    record.failReason = 'failReason' in outcome ? outcome.failReason : 'error' in outcome ? failReasonOf(outcome.error, logger) : 'interrupted';
  }
  if (record.vantages !== undefined) {
    settleVantages(record.vantages);
    const union = unionPorts(record.vantages);
    record.portsOpen = union.open;
    record.portsFiltered = union.filtered;
  }
  record.portsOpen.sort((a, b) => a.port - b.port);
  record.portsFiltered.sort((a, b) => a.port - b.port);
  record.ptrRecord = ptrRecord;
  record.completedAt = now;
  record.expiresAt = record.completedAt + RESULT_TTL_MS;
  record.durationMs = record.completedAt - (record.startedAt ?? record.queuedAt);
}

/** The one log line of every scan. */
export function logScanFinished(logger: Logger, record: ScanRecord): void {
  logger.info(
    {
      event: 'scan_finished',
      scanId: record.id,
      ip: record.ip,
      scanType: record.scanType,
      origin: record.origin,
      region: record.region,
      regions: record.regions,
      status: record.status,
      failReason: record.failReason,
      durationMs: record.durationMs,
      open: record.portsOpen.length,
      filtered: record.portsFiltered.length,
      severity: record.severity,
      opened: record.changes?.opened.length,
      closed: record.changes?.closed.length,
    },
    'scan finished',
  );
}

function failReasonOf(error: unknown, logger: Logger): FailReason {
  const code = (error as { code?: unknown } | null)?.code;
  logger.warn({ err: error }, 'scan could not run');
  return typeof code === 'string' && UNREACHABLE_CODES.has(code) ? 'unreachable' : 'scanner_error';
}
