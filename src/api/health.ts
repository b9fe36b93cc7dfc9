// GET /healthz: what a load balancer or an operator learns of one node.
import * as z from 'zod';

/** A node's health; `ok` false answers 503. */
export const Health = z
  .strictObject({
    ok: z.boolean().meta({ description: 'The node can serve: it reaches Redis (always true for a single process).' }),
    role: z.enum(['all', 'api', 'scanner']).meta({ description: 'What the node runs: `all` (a single process or both roles), `api` or `scanner`.' }),
    region: z.string().nullable().meta({ description: 'A scanner node: its region; an API node: the regions it sends scans to; null when none is set.' }),
    redis: z.enum(['up', 'down']).nullable().meta({ description: "Whether the node reaches the cluster's Redis; null for a single process." }),
    jobsInHand: z.int().min(0).meta({ description: 'Scans in flight (single process), chunk jobs running (scanner), scans streamed to watchers (API).' }),
    // The names of native/engine-choices.ts (api/ imports nothing of native/; the roles' type check ties the two).
    engine: z.enum(['syn', 'connect']).nullable().meta({
      description:
        'How the node probes ports: `syn` (half-open SYNs over a raw socket, with CAP_NET_RAW) or `connect` (a `connect()` per port); null for a node that does not scan (an API node).',
    }),
    http_server: z.enum(['uws', 'node']).meta({
      description: "The HTTP server this node answers on: `uws` (uWebSockets.js) or `node` (Node's own http), as setting `http.server` chose it.",
    }),
  })
  .meta({ description: 'The health of one node.' });
export type Health = z.output<typeof Health>;
