// The stream events built from a scan's state, one way for every bus and
// route: its progress, and its end (scan:failed or scan:complete by the
// final body's status).
import type { ScanResultFinal } from '../api/scan-result.js';
import type { ScanRecord } from '../model/scan-record.js';
import { progressBody } from './result-view.js';
import type { StreamEvent, StreamEventName } from './scan-events.js';

/** The terminal event's name for a scan that ended with `body`. */
export function terminalName(body: ScanResultFinal): StreamEventName {
  return body.status === 'failed' ? 'scan:failed' : 'scan:complete';
}

export function terminalEvent(body: ScanResultFinal, id: number): StreamEvent {
  return { name: terminalName(body), id, data: body, terminal: true };
}

/** scan:progress of an in-flight record; `chunkIndex`: the chunk just verified whole, if any. */
export function progressEvent(record: ScanRecord, id: number, chunkIndex?: number): StreamEvent {
  return { name: 'scan:progress', id, data: progressBody(record, chunkIndex), terminal: false };
}
