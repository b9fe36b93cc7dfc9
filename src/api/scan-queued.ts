// The answer to POST /v1/{fast,deep} (spec 2.1): the scan started, or the
// scan in flight the request joined, with its chunk counters.
import * as z from 'zod';

import { chunksComplete, etaSeconds, inFlightStatus, scanIdentity, totalChunks } from './scan-fields.js';
import { ScanRegions } from './vantages.js';

/**
 * A started scan, with its chunk counters whether the request started it or
 * joined it; they stay optional (both or neither) because earlier servers
 * sent them only for a join.
 */
export const ScanQueued = z
  .strictObject({
    ...scanIdentity,
    status: inFlightStatus,
    eta_seconds: etaSeconds,
    chunks_complete: chunksComplete.optional(),
    total_chunks: totalChunks.optional(),
    regions: ScanRegions.optional(),
  })
  .refine((body) => (body.chunks_complete === undefined) === (body.total_chunks === undefined), {
    message: 'chunks_complete and total_chunks come together',
    path: ['total_chunks'],
  })
  .meta({
    description:
      'A started scan: `queued` when fresh; `queued` or `running` when the request coalesced onto the scan in flight. ' +
      'Both carry the chunk counters (earlier servers sent them only with a coalesced answer).',
    // JSON Schema's spelling of the refinement above, which zod cannot convert.
    dependentRequired: { chunks_complete: ['total_chunks'], total_chunks: ['chunks_complete'] },
  });
export type ScanQueued = z.output<typeof ScanQueued>;
