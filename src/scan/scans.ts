// What the interfaces (REST, SSE, MCP) ask of scans, in one process or on a
// cluster node alike (scan-lifecycle.ts).

import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanQueued } from '../api/scan-queued.js';
import type { ScanResult } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanAdmit } from '../limits/rate/scan-admit.js';
import type { ScanOrigin } from '../model/scan-record.js';
import type { ScanListener, StreamEvent } from './scan-events.js';

/** A listener attached to one scan: the events it needs first, and how to detach it. */
export interface Watch {
  /** Stamped with the scan's own event ids; the listener gets only later ones. */
  initial: StreamEvent[];
  /** Detaches the listener; a no-op without one. */
  unsubscribe(): void;
}

export interface StartResult extends Watch {
  /** The scan started or joined. */
  scanId: string;
  /** The POST response body. */
  body: ScanQueued;
  /** True when the request joined a scan already in flight. */
  coalesced: boolean;
}

/** The scan limits of a new scan that looks from `scans` regions (1: from one place). */
export type AdmitScans = (scans: number) => ScanAdmit;

/**
 * `regionsAsked` (regions-asked.ts) names a multi-region scan, kept apart
 * from the scan of (ip, scanType) from one place; a server that scans from
 * one place refuses it (`invalid_regions`).
 */
export interface Scans {
  /**
   * Starts a scan of `ip`, or joins the one in flight for (ip, scanType).
   * `admit` is charged only when a new scan would start (joining one costs
   * no quota); if it refuses, nothing starts and its refusal is thrown.
   * Resolves once a new scan is durably recorded. `listener` receives the
   * scan's events after `initial` (scan:queued, then scan:progress if it runs).
   */
  start(ip: string, scanType: ScanType, origin: ScanOrigin, listener?: ScanListener, admit?: AdmitScans, regionsAsked?: RegionsAsked): Promise<StartResult>;
  /**
   * Attaches to the scan in flight for (ip, scanType); null when there is
   * none. `afterId` (a stream's Last-Event-ID) resumes: `initial` is then
   * the scan's state as one scan:progress newer than that id, or nothing
   * when no event since.
   */
  watch(ip: string, scanType: ScanType, listener: ScanListener, afterId?: number, regionsAsked?: RegionsAsked): Promise<Watch | null>;
  /** The GET body for (ip, scanType): in flight, finished, or `none`. */
  result(ip: string, scanType: ScanType, regionsAsked?: RegionsAsked): Promise<ScanResult>;
  /** result() when it can be answered without a store read; undefined when it cannot. */
  resultInMemory(ip: string, scanType: ScanType): ScanResult | undefined;
}
