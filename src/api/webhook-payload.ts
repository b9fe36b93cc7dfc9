// The body of a completion webhook (spec 6.2): which event, and the result
// as GET would answer it.
import * as z from 'zod';

import { ScanResultFinal } from './scan-result.js';

/** `scan.complete` (also for `incomplete` results) or `scan.failed`; also the X-Selfscan-Event header. */
export const WebhookEvent = z.enum(['scan.complete', 'scan.failed']).meta({
  description: '`scan.complete` (also for `incomplete` results) or `scan.failed`.',
});
export type WebhookEvent = z.output<typeof WebhookEvent>;

/** What a webhook POSTs. */
export const WebhookPayload = z.strictObject({ event: WebhookEvent, result: ScanResultFinal });
export type WebhookPayload = z.output<typeof WebhookPayload>;
