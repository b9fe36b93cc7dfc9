// After a sweep, what is behind each open port: TLS, HTTP, SSH, and data
// stores or control APIs that answer without credentials, then its risk from
// the severity table. Every probe is a harmless read; the whole call is
// bounded (a stage cap, reply waits that follow the path, 64 KiB a
// connection, 32 connections at once) so hostile servers cannot stall it,
// crash it or bloat the result.
import { setMaxListeners } from 'node:events';
import { isIP } from 'node:net';

import type { Port } from '../api/port.js';
import { ConnectionSlots } from './connection-slots.js';
import { factsOf, type PortFindings } from './port-findings.js';
import { planProbes } from './probe-plan.js';
import { probePort } from './probe-port.js';
import { assessPort } from './severity-table.js';
import { clientContext } from './tls-probe.js';
import { systemTrustRoots } from './trust-roots.js';

/** How long a gatherFacts call may take at most, by default. */
export const FACTS_CAP_MS = 3000;
/** Most probe connections open at once in one gatherFacts call. */
export const MAX_PROBE_CONNECTIONS = 32;

export interface GatherFactsOptions {
  /** The PTR name of the address (SNI, and checked against certificates), or null. */
  ptr: string | null;
  /** PEM CA certificates a chain is trusted by; default: the system's CA store (trust-roots.ts). */
  trustRoots?: readonly string[];
  /** Unix ms now, for days_left (tests inject). Default Date.now. */
  now?: () => number;
  /** The stage cap: after this many ms every probe still open is destroyed and what was learned is kept. Default FACTS_CAP_MS. */
  capMs?: number;
}

/**
 * Probes each open port of `ports` of `ip` in parallel and sets its `facts`
 * (when anything was learned) and its `risk` (assessPort, always). Ports
 * that are not open are left alone. Never rejects; bounded in time and bytes.
 */
export async function gatherFacts(ip: string, ports: Port[], options: GatherFactsOptions): Promise<void> {
  const open = ports.filter((port) => port.state === 'open');
  const probed = isIP(ip) === 0 ? [] : open; // probes go to an address, never to a name to look up
  const findings = probed.map((): PortFindings => ({ access: [] }));
  const controller = new AbortController();
  setMaxListeners(0, controller.signal); // each connection and each wait for a slot listens
  const timer = setTimeout(() => controller.abort(), options.capMs ?? FACTS_CAP_MS);
  try {
    const capped = new Promise<void>((resolve) => controller.signal.addEventListener('abort', () => resolve(), { once: true }));
    const settings = { ptr: options.ptr, context: clientContext(options.trustRoots ?? systemTrustRoots()), now: options.now ?? Date.now };
    const slots = new ConnectionSlots(MAX_PROBE_CONNECTIONS);
    const probes = probed.map((port, index) =>
      probePort({ ip, port: port.port, signal: controller.signal, slots }, port.banner, planProbes(port), settings, findings[index]!),
    );
    await Promise.race([Promise.allSettled(probes), capped]);
  } catch {
    // A probe's own failure only means fewer facts.
  } finally {
    clearTimeout(timer);
    controller.abort(); // what is still open is closed; later findings are not read
  }
  for (const [index, port] of probed.entries()) {
    const facts = factsOf(findings[index]!);
    if (facts !== null) port.facts = facts;
  }
  for (const port of open) port.risk = assessPort(port);
}
