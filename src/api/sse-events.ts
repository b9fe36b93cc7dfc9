// The v2 stream's events (spec 6.1) and the JSON payload of each: the
// queued and progress payloads are their own; the terminal events carry
// the result shapes GET returns.
import type * as z from 'zod';

import { count, portList } from './scan-fields.js';
import { ScanResultFailed, ScanResultFinished, ScanResultInFlight } from './scan-result.js';

/** Payload of `scan:queued`: the in-flight state. */
export const SseQueued = ScanResultInFlight.meta({
  description: 'Payload of `scan:queued`: the scan was accepted, or the stream attached to the scan in flight.',
});
export type SseQueued = z.output<typeof SseQueued>;

/** Payload of `scan:progress`: the in-flight state without the eta, with the open ports so far. */
export const SseProgress = ScanResultInFlight.omit({ eta_seconds: true })
  .extend({
    ports_open: portList('Open ports found so far.'),
    filtered_count: count('Filtered ports found so far.'),
  })
  .meta({ description: 'Payload of `scan:progress`.' });
export type SseProgress = z.output<typeof SseProgress>;

/** Each event name, in the order a stream sends them, and its payload. */
export const SSE_EVENTS = {
  'scan:queued': SseQueued,
  'scan:progress': SseProgress,
  'scan:complete': ScanResultFinished,
  'scan:failed': ScanResultFailed,
} as const;

/** The name of a stream event. */
export type SseEventName = keyof typeof SSE_EVENTS;
