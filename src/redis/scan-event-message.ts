// What goes over the events channel: each change of a scan's stored state,
// numbered by the scan's own sequence (also the SSE `id:`). The Lua scripts
// that store a change publish it in the same step (redis-scan-progress.ts).
import type { Port } from '../api/port.js';
import type { ScanResultFinal } from '../api/scan-result.js';

/** What a scanner node found in one chunk. */
export interface ChunkFindings {
  open: Port[];
  filtered: Port[];
  /** Every port of the chunk has a verified state. */
  complete: boolean;
  /** When the scanner node recorded it (Unix ms): a region's duration in a multi-region scan. */
  at?: number;
}

export type ScanEventMessage = { scanId: string; seq: number } & (
  | { kind: 'running'; startedAt: number }
  | { kind: 'chunk'; index: number; chunk: ChunkFindings }
  | { kind: 'end'; body: ScanResultFinal }
);

export function parseScanEventMessage(text: string): ScanEventMessage {
  return JSON.parse(text) as ScanEventMessage;
}
