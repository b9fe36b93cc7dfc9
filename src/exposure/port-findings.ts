// What the probes of one port have learned so far. Probes write here as soon
// as they learn something, so what was learned before the stage cap cut
// them off is kept; the facts are read from it once, when the call ends.
import type { AccessFacts, HttpFacts, PortFacts, SshFacts, TlsFacts } from '../api/port-facts.js';

/** The facts found on one port, by where they came from. */
export interface PortFindings {
  tls?: TlsFacts;
  /** `GET /` over TLS. */
  tlsHttp?: HttpFacts;
  /** `GET /` in clear. */
  plainHttp?: HttpFacts;
  ssh?: SshFacts;
  /** Each data store or control API recognised, in the order found. */
  access: AccessFacts[];
}

/**
 * The port's facts, or null when nothing was learned. HTTP over TLS wins
 * over cleartext (a TLS port may also answer a plain request with a 400);
 * of several access findings, one that needs no credentials wins.
 */
export function factsOf(findings: PortFindings): PortFacts | null {
  const facts: PortFacts = {};
  if (findings.tls !== undefined) facts.tls = findings.tls;
  const http = findings.tlsHttp ?? findings.plainHttp;
  if (http !== undefined) facts.http = http;
  if (findings.ssh !== undefined) facts.ssh = findings.ssh;
  const access = findings.access.find((found) => !found.auth_required) ?? findings.access[0];
  if (access !== undefined) facts.access = access;
  return Object.keys(facts).length > 0 ? facts : null;
}
