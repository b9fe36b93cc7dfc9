// One port's result (spec 2.3), as the scanner reports it and every result,
// event and tool answer shows it.
import * as z from 'zod';

/** What a probe found: `open`, `closed` (refused) or `filtered` (no answer). */
export const PortState = z.enum(['open', 'closed', 'filtered']);
export type PortState = z.output<typeof PortState>;

/** A port, its state, its IANA service name and the banner it sent. */
export const Port = z.strictObject({
  port: z.int().min(1).max(65535),
  state: PortState,
  service: z.string().nullable().meta({ description: 'IANA service name of the port, or null.' }),
  banner: z.string().nullable().meta({ description: 'What the service said (printable, truncated), or null.' }),
});
export type Port = z.output<typeof Port>;
