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
