// The events of a scan and how they reach whoever watches it (v2 streams,
// MCP progress): the shapes every deployment sends, and the bus of one
// process, where the scanner role publishes and the memory book subscribes
// (memory/in-process-scan-events.ts). A cluster's events are changes of the
// scan's state in Redis, numbered and published in the same atomic step,
// and reach watchers through the Redis book (redis/cluster-watchers.ts).
import type { Logger } from 'pino';

import type { ScanResultFinal } from '../api/scan-result.js';
import type { SseEventName } from '../api/sse-events.js';
import type { ScanRecord } from '../model/scan-record.js';

/** The interface's Server-Sent Event names. */
export type StreamEventName = SseEventName;

export interface StreamEvent {
  name: StreamEventName;
  /** Increasing within one scan; the SSE `id:` line. */
  id: number;
  data: object;
  /** scan:complete or scan:failed: nothing follows. */
  terminal: boolean;
}

export type ScanListener = (event: StreamEvent) => void;

/** A scan that ended: its final (stored) record and the body every interface shows for it. */
export interface EndedScan {
  record: ScanRecord;
  body: ScanResultFinal;
}

/** An event to stamp for a new subscriber, before the ones published later. */
export interface InitialEvent {
  name: StreamEventName;
  data: object;
}

export interface Subscription {
  /** `initial`, stamped with ids of the scan's own sequence. */
  initial: StreamEvent[];
  unsubscribe(): void;
}

export interface ScanEvents {
  /**
   * Sends a progress event of `scanId` to its subscribers; `data` is built
   * only when there are any.
   */
  progress(scanId: string, data: () => object): void;
  /**
   * Ends `scanId`: `onEnded` listeners first (so a reader sees the final
   * state before any watcher hears of it), then its subscribers get the
   * terminal event and are dropped.
   */
  ended(scan: EndedScan): void;
  /** Listens to one scan's events after the ones `initial` makes, given the id the first of them will take. */
  subscribe(scanId: string, listener: ScanListener, initial: (nextId: number) => readonly InitialEvent[]): Subscription;
  /** Listens to every scan's end. */
  onEnded(listener: (scan: EndedScan) => void): void;
}

/** Hands `event` to each of `listeners`; one that throws is logged and the others still get it. */
export function sendToListeners(listeners: ReadonlySet<ScanListener>, event: StreamEvent, scanId: string, log: Logger): void {
  for (const listener of [...listeners]) {
    try {
      listener(event);
    } catch (error) {
      log.error({ err: error, scanId }, 'scan listener threw');
    }
  }
}
