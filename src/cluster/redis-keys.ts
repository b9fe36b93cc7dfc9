// The names of selfscan's keys in Redis, in one place: every script and
// adapter that touches a key takes its name from here.
import type { ScanType } from '../api/scan-type.js';

/** The record of (scan type, ip). */
export const resultKey = (scanType: ScanType, ip: string): string => `selfscan:result:${scanType}|${ip}`;
/** The id of the scan in flight for (scan type, ip), while there is one. */
export const inFlightKey = (scanType: ScanType, ip: string): string => `selfscan:inflight:${scanType}|${ip}`;
/** The set of result keys whose records are still queued or running. */
export const UNFINISHED_KEY = 'selfscan:unfinished';
/** The GCRA state of one rate-limited key. */
export const limitKey = (key: string): string => `selfscan:limit:${key}`;
/** The webhook signing key (PKCS#8 PEM) that every API node signs with. */
export const WEBHOOK_SIGNING_KEY = 'selfscan:webhook-signing-key';
/** The webhook registrations of one scan: a hash of delivery id → JSON {url, ip, scanType}. */
export const hooksKey = (scanId: string): string => `selfscan:hooks:${scanId}`;
/** The BullMQ queue of webhook deliveries (under QUEUE_PREFIX: keys `selfscan:webhooks:*`). */
export const WEBHOOK_QUEUE = 'webhooks';
