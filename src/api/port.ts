// One port's result (spec 2.3), as the scanner reports it and every result,
// event and tool answer shows it.
import * as z from 'zod';

import { PortFacts, PortRisk } from './port-facts.js';

/** What a probe found: `open`, `closed` (refused) or `filtered` (no answer). */
export const PortState = z.enum(['open', 'closed', 'filtered']);
export type PortState = z.output<typeof PortState>;

/** A port, its state, its IANA service name, the banner it sent and, once a scan has finished, what is known of it and how risky it is. */
export const Port = z.strictObject({
  port: z.int().min(1).max(65535),
  state: PortState,
  service: z.string().nullable().meta({ description: 'IANA service name of the port, or null.' }),
  banner: z.string().nullable().meta({ description: 'What the service said (printable, truncated), or null.' }),
  facts: PortFacts.optional().meta({ description: 'What the probes after the sweep learned (open ports of a finished scan; since 1.1).' }),
  risk: PortRisk.optional().meta({ description: 'Its severity, why, and what to do (open ports of a finished scan; since 1.1).' }),
});
export type Port = z.output<typeof Port>;
