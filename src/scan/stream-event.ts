// The events a scan emits to whoever watches it (v2 streams, MCP progress,
// webhooks): the interface's Server-Sent Event names and JSON payloads.
import type { SseEventName } from '../api/sse-events.js';

/** The name of an event: one of the v2 stream's. */
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
