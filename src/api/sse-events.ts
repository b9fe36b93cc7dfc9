// The v2 stream's events (spec 6.1) and the JSON payload of each: the
// queued and progress payloads are their own; the terminal events carry
// the result shapes GET returns.
import * as z from 'zod';

import { count, etaSeconds, portList } from './scan-fields.js';
import { ScanResultFailed, ScanResultFinished, ScanResultInFlight } from './scan-result.js';
import { RegionName } from './vantages.js';

/** Payload of `scan:queued`: the in-flight state. */
export const SseQueued = ScanResultInFlight.meta({
  description: 'Payload of `scan:queued`: the scan was accepted, or the stream attached to the scan in flight.',
});
export type SseQueued = z.output<typeof SseQueued>;

/** Payload of `scan:progress`: the in-flight state, with the open ports so far and, once the path gave one, the eta. */
export const SseProgress = ScanResultInFlight.omit({ eta_seconds: true })
  .extend({
    eta_seconds: etaSeconds.optional().meta({
      description:
        'Seconds the scan is still expected to take, from the path to its target: the probes still owed at the pace the target takes, plus the timeouts of the retransmission rounds its loss calls for. Absent until the target has answered once. A hint, not a guarantee.',
    }),
    ports_open: portList('Open ports found so far.'),
    filtered_count: count('Filtered ports found so far.'),
    chunk_index: z.int().min(0).optional().meta({
      description:
        'The chunk whose ports were all just verified, counted from 0: deep chunk i covers ports i·1024+1 to (i+1)·1024 (the last ends at 65535); fast chunk i the i-th 8 of its 32 ports in probe order. Chunks finish out of order. Absent when the event reports no finished chunk (the scan started, or the stream resumed). In a multi-region scan it counts within `region`.',
    }),
    region: RegionName.optional().meta({ description: 'The region whose chunk `chunk_index` is (multi-region scans only, since 1.2).' }),
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
