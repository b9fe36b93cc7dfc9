// What GET /v1/{fast,deep} answers (spec 2.2): one shape per status, told
// apart by `status`. The finished and failed shapes are also the terminal
// stream events, the webhook's result and (with a message) the MCP tools'.
import * as z from 'zod';

import { FailReason } from './fail-reason.js';
import { Severity } from './port-facts.js';
import { ScanChanges } from './scan-changes.js';
import { chunksComplete, count, etaSeconds, inFlightStatus, portList, queuePosition, scanIdentity, scanRegion, totalChunks } from './scan-fields.js';
import { vantageFields, vantageProgressFields } from './vantages.js';

/** No scan of this type exists for the address (or its result expired). */
export const ScanResultNone = z
  .strictObject({ ...scanIdentity, status: z.literal('none') })
  .meta({ description: 'No scan of this type exists for the address (or its result expired).' });
export type ScanResultNone = z.output<typeof ScanResultNone>;

/** A scan waiting or in progress. */
export const ScanResultInFlight = z
  .strictObject({
    ...scanIdentity,
    status: inFlightStatus,
    queue_position: queuePosition,
    chunks_complete: chunksComplete,
    total_chunks: totalChunks,
    eta_seconds: etaSeconds,
    ...vantageProgressFields,
  })
  .meta({ description: 'A scan waiting or in progress.' });
export type ScanResultInFlight = z.output<typeof ScanResultInFlight>;

/** The fields of a scan that ran to its end, complete or not. */
const finishedFields = {
  ...scanIdentity,
  ports_open: portList('Open ports found.'),
  ports_filtered: portList('Ports that did not answer (filtered).'),
  service_banners: z
    .record(z.string().regex(/^[1-9][0-9]{0,4}$/), z.string())
    .meta({ description: 'Banner of each open port that sent one, keyed by port number as a string.' }),
  ptr_record: z.string().nullable().meta({ description: 'Reverse-DNS name of the address, or null.' }),
  duration_ms: count('Scan duration in milliseconds.'),
  completed_at: z.int().meta({ description: 'When the scan ended, Unix seconds.' }),
  expires_at: z.int().meta({
    description: 'When the result expires (24 hours after completion), Unix seconds. After that GET returns `none`.',
  }),
  region: scanRegion,
  severity: Severity.nullable()
    .optional()
    .meta({ description: 'The highest severity of the open ports; null when none is open (since 1.1; absent when facts are off).' }),
  changes: ScanChanges.nullable().optional().meta({
    description:
      'What changed since the last scan of this address and type; null when none is remembered (since 1.1; absent when the server keeps no fingerprints).',
  }),
  ...vantageFields,
};

/** A finished scan of the whole port range. */
export const ScanResultComplete = z
  .strictObject({ ...finishedFields, status: z.literal('complete') })
  .meta({ description: 'A finished scan of the whole port range.' });
export type ScanResultComplete = z.output<typeof ScanResultComplete>;

/** A partial result: never a full scan. */
export const ScanResultIncomplete = z
  .strictObject({
    ...finishedFields,
    status: z.literal('incomplete'),
    partial: z.literal(true).meta({ description: 'The scan ran out of time: never treat this as a complete scan.' }),
    chunks_complete: chunksComplete,
    total_chunks: totalChunks,
  })
  .meta({
    description:
      'A partial result: the host was too slow or too filtered to finish the range. The port lists hold ' +
      'what was found; never treat it as a complete scan.',
  });
export type ScanResultIncomplete = z.output<typeof ScanResultIncomplete>;

/** A scan that did not complete, and why. */
export const ScanResultFailed = z
  .strictObject({
    ...scanIdentity,
    status: z.literal('failed'),
    chunks_complete: chunksComplete,
    total_chunks: totalChunks,
    fail_reason: FailReason,
    region: scanRegion,
    ...vantageFields,
  })
  .meta({ description: 'A scan that did not complete.' });
export type ScanResultFailed = z.output<typeof ScanResultFailed>;

/** A scan that ran to its end: `complete` or `incomplete`. */
export const ScanResultFinished = z
  .discriminatedUnion('status', [ScanResultComplete, ScanResultIncomplete])
  .meta({ description: 'A scan that ran to its end: the whole range (`complete`) or part of it (`incomplete`).' });
export type ScanResultFinished = z.output<typeof ScanResultFinished>;

/** A scan that is over: finished or failed. */
export const ScanResultFinal = z
  .discriminatedUnion('status', [ScanResultComplete, ScanResultIncomplete, ScanResultFailed])
  .meta({ description: 'A scan that is over: `complete`, `incomplete` or `failed`.' });
export type ScanResultFinal = z.output<typeof ScanResultFinal>;

/** The state or result of a scan, by `status`. */
export const ScanResult = z
  .discriminatedUnion('status', [ScanResultNone, ScanResultInFlight, ScanResultComplete, ScanResultIncomplete, ScanResultFailed])
  .meta({ description: 'The state or result of a scan, by `status`.' });
export type ScanResult = z.output<typeof ScanResult>;
