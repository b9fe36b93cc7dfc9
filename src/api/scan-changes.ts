// What changed since the last scan of the same address and type: the
// difference of this scan from the fingerprint kept of the earlier one.
import * as z from 'zod';

import { Severity } from './port-facts.js';

const portNumber = z.int().min(1).max(65535);

/** What changed on a port open in both scans. */
export const ChangeKind = z.enum(['banner', 'certificate', 'severity']);
export type ChangeKind = z.output<typeof ChangeKind>;

/** A port open in both scans that changed. */
export const PortChange = z.strictObject({
  port: portNumber,
  what: z.array(ChangeKind).min(1).meta({ description: 'What changed: `banner`, `certificate`, `severity`.' }),
  severity_before: Severity.nullable().meta({ description: 'Its severity in the earlier scan (null: not assessed then).' }),
  severity_after: Severity.nullable().meta({ description: 'Its severity now (null: not assessed).' }),
});
export type PortChange = z.output<typeof PortChange>;

/** The difference from the earlier scan. */
export const ScanChanges = z
  .strictObject({
    since: z.int().meta({ description: 'When the scan compared against ended, Unix seconds.' }),
    opened: z.array(portNumber).meta({ description: 'Ports open now and not then.' }),
    closed: z.array(portNumber).meta({
      description: 'Ports open then and not now. An incomplete scan lists none: a port it did not reach is not known to have closed.',
    }),
    changed: z.array(PortChange).meta({ description: 'Ports open in both whose banner, certificate or severity changed.' }),
  })
  .meta({ description: 'What changed since the last scan of this address and type.' });
export type ScanChanges = z.output<typeof ScanChanges>;
