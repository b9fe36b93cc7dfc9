// Starting a scan through every abuse control, for every interface (v1,
// v2, MCP): target policy and opt-out first, then the webhook limit of a
// POST that registers one (refused before anything starts, so nothing
// half-happens), then coalescing, then the scan limits, charged only when a
// new scan really starts.
import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanType } from '../api/scan-type.js';
import type { Admission } from '../limits/admission.js';
import type { ScanOrigin } from '../model/scan-record.js';
import type { ScanListener } from './scan-events.js';
import type { Scans, StartResult } from './scans.js';

/** Whether the start also registers a webhook (charged to `webhooksPerIp`). */
export type WebhookIntent = 'webhook' | 'no-webhook';

export async function guardedStart(
  admission: Admission,
  scans: Scans,
  ip: string,
  scanType: ScanType,
  origin: ScanOrigin,
  listener?: ScanListener,
  webhook: WebhookIntent = 'no-webhook',
  regionsAsked?: RegionsAsked,
): Promise<StartResult> {
  admission.checkTarget(ip, scanType, origin);
  if (webhook === 'webhook') await admission.admitWebhook(ip, scanType, origin);
  return scans.start(ip, scanType, origin, listener, (count) => admission.admitScan(ip, scanType, origin, count), regionsAsked);
}
