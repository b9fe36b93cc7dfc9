// What a webhook tells about a scan, built in one place for the embedded
// and the cluster webhooks: the event and the JSON body (fixed once, so
// every retry sends the same bytes), and which record a registration is
// owed once its scan is over, or a stand-in when that record is gone.
import type { ScanType } from '../api/scan-type.js';
import type { WebhookEvent, WebhookPayload } from '../api/webhook-payload.js';
import { isFinal, queuedRecord, type ScanRecord } from '../model/scan-record.js';
import { finalBody } from '../scan/result-view.js';

/** A notification's event (also the X-Selfscan-Event header) and its JSON body. */
export interface WebhookBody {
  event: WebhookEvent;
  body: string;
}

/** The notification of the ended scan of `record`. */
export function webhookBody(record: ScanRecord): WebhookBody {
  const payload: WebhookPayload = { event: record.status === 'failed' ? 'scan.failed' : 'scan.complete', result: finalBody(record) };
  return { event: payload.event, body: JSON.stringify(payload) };
}

/**
 * What a registration for scan `scanId` of (ip, scanType) is owed, given
 * `stored`, the record now stored for (ip, scanType): the scan's own record
 * once final; a failed/interrupted stand-in when its record is gone
 * (expired, or replaced by a newer scan); null while the scan is in flight.
 */
export function recordOwed(stored: ScanRecord | null, scanId: string, ip: string, scanType: ScanType): ScanRecord | null {
  if (stored !== null && stored.id === scanId) return isFinal(stored.status) ? stored : null;
  return { ...queuedRecord(scanId, ip, scanType, 'v1', 0), status: 'failed', failReason: 'interrupted' };
}
