// Ends a scan: settles its record from how the scan went, stores it (the
// result is durable before anyone hears of it), logs the scan's one line and
// publishes its end.
import type { Logger } from 'pino';

import type { FailReason } from '../api/fail-reason.js';
import type { Clock } from '../model/clock.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { ScanSummary } from '../native/scanner.js';
import type { RecordWriter } from './record-writer.js';
import { finalBody } from './result-view.js';
import type { ScanEvents } from './scan-events.js';

export const RESULT_TTL_MS = 24 * 60 * 60 * 1000;

/** How a scan went: the scanner's summary, its error, or a reason it never ran to the end. */
export type ScanOutcome = { summary: Pick<ScanSummary, 'status'> & { durationMs?: number } } | { error: unknown } | { failReason: FailReason };

const UNREACHABLE_CODES = new Set(['ENETUNREACH', 'EHOSTUNREACH']);

export interface ScanFinisherOptions {
  writer: RecordWriter;
  events: ScanEvents;
  clock: Clock;
  logger: Logger;
}

export class ScanFinisher {
  constructor(private readonly options: ScanFinisherOptions) {}

  /** Makes `record` final (it does not change afterwards), stores and publishes it. */
  async finish(record: ScanRecord, outcome: ScanOutcome, ptrRecord: string | null): Promise<void> {
    const { clock, logger } = this.options;
    settleRecord(record, outcome, ptrRecord, clock.now(), logger);
    try {
      await this.options.writer.write(record);
    } catch (error) {
      logger.error({ err: error, scanId: record.id }, 'could not store scan result');
    }
    logScanFinished(logger, record);
    this.options.events.ended({ record, body: finalBody(record) });
  }
}

/** Makes `record` final from how the scan went: status, sorted lists, PTR, times, 24 h expiry. */
export function settleRecord(record: ScanRecord, outcome: ScanOutcome, ptrRecord: string | null, now: number, logger: Logger): void {
  if ('summary' in outcome && outcome.summary.status !== 'cancelled') {
    record.status = outcome.summary.status;
    record.durationMs = outcome.summary.durationMs ?? null;
  } else {
    record.status = 'failed';
    record.failReason = 'failReason' in outcome ? outcome.failReason : 'error' in outcome ? failReasonOf(outcome.error, logger) : 'interrupted';
  }
  record.portsOpen.sort((a, b) => a.port - b.port);
  record.portsFiltered.sort((a, b) => a.port - b.port);
  record.ptrRecord = ptrRecord;
  record.completedAt = now;
  record.expiresAt = record.completedAt + RESULT_TTL_MS;
  record.durationMs ??= record.completedAt - (record.startedAt ?? record.queuedAt);
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
      status: record.status,
      failReason: record.failReason,
      durationMs: record.durationMs,
      open: record.portsOpen.length,
      filtered: record.portsFiltered.length,
    },
    'scan finished',
  );
}

function failReasonOf(error: unknown, logger: Logger): FailReason {
  const code = (error as { code?: unknown } | null)?.code;
  logger.warn({ err: error }, 'scan could not run');
  return typeof code === 'string' && UNREACHABLE_CODES.has(code) ? 'unreachable' : 'scanner_error';
}
