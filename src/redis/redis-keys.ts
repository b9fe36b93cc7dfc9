// The names of selfscan's keys in Redis, in one place: every script and
// adapter that touches a key takes its name from here.
import type { ScanType } from '../api/scan-type.js';

/** (scan type, ip), and the regions a multi-region scan was asked for (its own key: it never joins a scan from one place). */
const scanSubject = (scanType: ScanType, ip: string, regionsAsked?: string): string =>
  regionsAsked === undefined ? `${scanType}|${ip}` : `${scanType}|${ip}|${regionsAsked}`;
/** The record of (scan type, ip[, regions asked]). */
export const resultKey = (scanType: ScanType, ip: string, regionsAsked?: string): string => `selfscan:result:${scanSubject(scanType, ip, regionsAsked)}`;
/** The id of the scan in flight for (scan type, ip[, regions asked]), while there is one. */
export const inFlightKey = (scanType: ScanType, ip: string, regionsAsked?: string): string => `selfscan:inflight:${scanSubject(scanType, ip, regionsAsked)}`;
/** The fingerprint kept of an address's last complete scan of a type, expiring with its retention. */
export const fingerprintKey = (scanType: ScanType, ip: string): string => `selfscan:fingerprint:${scanType}|${ip}`;
/** The set of result keys whose records are still queued or running. */
export const UNFINISHED_KEY = 'selfscan:unfinished';
/** The GCRA state of one rate-limited key. */
export const limitKey = (key: string): string => `selfscan:limit:${key}`;
/** A scan in flight: a hash of SCAN_STATE_FIELDS. */
export const scanKey = (scanId: string): string => `selfscan:scan:${scanId}`;
/**
 * The fields of a scan's state (scanKey), as the lua/scan-*.lua scripts
 * write them: its region, chunks in all, when it was queued, its status
 * (queued, running), when it started, chunks recorded (done) and verified
 * whole (complete), the number of its last event (seq), and ended (set
 * once). test/cluster/lua-scripts.test.ts checks the scripts use no other.
 */
export const SCAN_STATE_FIELDS = ['region', 'total', 'queuedAt', 'status', 'startedAt', 'done', 'complete', 'seq', 'ended'] as const;
export type ScanState = Partial<Record<(typeof SCAN_STATE_FIELDS)[number], string>>;
/** What each recorded chunk of a scan found, by chunk index. */
export const chunksKey = (scanId: string): string => `selfscan:chunks:${scanId}`;
/** The Pub/Sub channel of every scan's events (scan-event-message.ts). */
export const EVENTS_CHANNEL = 'selfscan:events';
/** The scanner nodes of a region, each scored with the time its heartbeat lapses. */
export const scannersKey = (region: string): string => `selfscan:scanners:${region}`;
/** Every region a scanner node has announced. */
export const REGIONS_KEY = 'selfscan:regions';
/** How long a scan's state and chunks are kept: past any scan's budget, and the result's 24 h (late resumes). */
export const SCAN_STATE_TTL_MS = 25 * 60 * 60 * 1000;
/** The webhook signing key (PKCS#8 PEM) that every API node signs with. */
export const WEBHOOK_SIGNING_KEY = 'selfscan:webhook-signing-key';
/** The webhook registrations of one scan: a hash of delivery id → JSON {url, ip, scanType}. */
export const hooksKey = (scanId: string): string => `selfscan:hooks:${scanId}`;
/** BullMQ's key prefix for every selfscan queue. */
export const QUEUE_PREFIX = 'selfscan';
/** The BullMQ queue of webhook deliveries (under QUEUE_PREFIX: keys `selfscan:webhooks:*`). */
export const WEBHOOK_QUEUE = 'webhooks';
/** The BullMQ queue of a region's chunk jobs (keys `selfscan:chunks-<region>:*`). */
export const chunkQueueName = (region: string): string => `chunks-${region}`;
/** The BullMQ queue of scans whose chunks are all done, to be finished (keys `selfscan:finish:*`). */
export const FINISH_QUEUE = 'finish';

/** Written by each round of replica-wait.ts, so that its WAIT covers every write the primary ran before it. */
export const REPLICA_WAIT_MARKER_KEY = 'selfscan:replica-wait';
