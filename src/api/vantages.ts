// A multi-region scan's views (interface 1.2, additive): the regions it was
// asked to look from, each region's own result, and the ports whose state
// is not the same from every region. The target is always the caller: a
// region is where a scan looks from, never what it looks at.
import * as z from 'zod';

import { FailReason } from './fail-reason.js';
import { chunksComplete, count, portList, totalChunks } from './scan-fields.js';

/** A region's name as scanner nodes announce it. */
export const RegionName = z.string().regex(/^[A-Za-z0-9_-]{1,32}$/);

/** The regions a multi-region scan runs from, sorted. */
export const ScanRegions = z
  .array(RegionName)
  .min(1)
  .meta({ description: 'The regions this scan looks from (multi-region scans only, since 1.2), sorted; each scans the whole range of the same address.' });

/** Which region, and how far it got: every region's view and progress start so. */
const regionCounts = { region: RegionName, chunks_complete: chunksComplete, total_chunks: totalChunks };

/** One region's view of a finished multi-region scan. */
export const Vantage = z
  .strictObject({
    ...regionCounts,
    status: z.enum(['complete', 'incomplete', 'failed']).meta({
      description:
        '`complete`: this region verified every port; `incomplete`: part of the range (its scanners ran out of budget or died); `failed`: nothing was learned from here.',
    }),
    fail_reason: FailReason.optional().meta({ description: 'Why nothing was learned from this region (`failed` only).' }),
    duration_ms: count('From the scan start to this region’s last finished chunk, in milliseconds; 0 when it finished none.'),
    ports_open: portList('Ports open from this region.'),
    ports_filtered: portList('Ports filtered from this region.'),
  })
  .meta({ description: 'One region’s own view of the scan.' });
export type Vantage = z.output<typeof Vantage>;

/** One region's progress while a multi-region scan runs. */
export const VantageProgress = z
  .strictObject({
    ...regionCounts,
    ports_open: portList('Ports found open from this region so far.'),
    filtered_count: count('Ports found filtered from this region so far.'),
  })
  .meta({ description: 'One region’s progress.' });
export type VantageProgress = z.output<typeof VantageProgress>;

const regionList = (description: string) => z.array(RegionName).meta({ description });

/** A port whose state differs between regions. */
export const PortDifference = z
  .strictObject({
    port: z.int().min(1).max(65535),
    open: regionList('Regions that reached the port.'),
    filtered: regionList('Regions whose probes got no answer.'),
    closed: regionList('Regions the port refused.'),
    unknown: regionList('Regions that did not verify the port (they ran out of budget or failed).'),
  })
  .meta({ description: 'A port whose state is not the same from every region that verified it.' });
export type PortDifference = z.output<typeof PortDifference>;

/** The fields a finished multi-region scan adds. */
export const vantageFields = {
  regions: ScanRegions.optional(),
  vantages: z.array(Vantage).optional().meta({
    description:
      'Each region’s own view (multi-region scans only, since 1.2). `ports_open` and `ports_filtered` above are the union: open if any region reached the port; filtered if no region reached it and one got no answer.',
  }),
  differences: z
    .array(PortDifference)
    .optional()
    .meta({ description: 'Ports whose state is not the same from every region that verified them, by port (multi-region scans only, since 1.2).' }),
};

/** The fields an in-flight multi-region scan adds. */
export const vantageProgressFields = {
  regions: ScanRegions.optional(),
  vantages: z.array(VantageProgress).optional().meta({ description: 'Each region’s progress (multi-region scans only, since 1.2).' }),
};
