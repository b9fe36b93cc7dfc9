// The probes of one open port, as its plan says, run side by side where they
// are independent (TLS, cleartext HTTP, the data-store probe), so a port costs
// about one reply wait; each writes what it learns into the port's findings
// the moment it learns it.
import type { SecureContext } from 'node:tls';

import type { AccessFacts } from '../api/port-facts.js';
import { recognizeDocker } from './docker-probe.js';
import { recognizeElasticsearch } from './elasticsearch-probe.js';
import { hostHeader, httpFacts, probeHttp, requestHttp } from './http-probe.js';
import { probeMemcached } from './memcached-probe.js';
import { probeMongodb } from './mongodb-probe.js';
import type { PortFindings } from './port-findings.js';
import type { ProbeTarget } from './probe-connection.js';
import type { ProbePlan } from './probe-plan.js';
import { probeRedis } from './redis-probe.js';
import { parseSshBanner } from './ssh-banner.js';
import { tlsHandshake, tlsOptions } from './tls-probe.js';

/** What every probe of one gatherFacts call shares. */
export interface ProbeSettings {
  ptr: string | null;
  context: SecureContext;
  now: () => number;
}

/** Runs the probes of `plan` against `target`; resolves when all have ended (never rejects). */
export async function probePort(target: ProbeTarget, banner: string | null, plan: ProbePlan, settings: ProbeSettings, findings: PortFindings): Promise<void> {
  const found = (access: AccessFacts | null) => {
    if (access !== null) findings.access.push(access);
  };
  if (plan.ssh && banner !== null) {
    const ssh = parseSshBanner(banner);
    if (ssh !== null) findings.ssh = ssh;
  }
  const probes: Promise<void>[] = [];
  if (plan.tls) probes.push(probeTlsPort(target, settings, findings, found));
  if (plan.http) {
    probes.push(
      probeHttp(target, '/', hostHeader(target, settings.ptr, false), null).then((response) => {
        if (response === null) return;
        findings.plainHttp = httpFacts(response, false);
        found(recognizeElasticsearch(response, target.port));
      }),
    );
  }
  if (plan.docker) {
    probes.push(
      probeHttp(target, '/version', hostHeader(target, settings.ptr, false), null).then((response) => {
        if (response !== null) found(recognizeDocker(response, target.port));
      }),
    );
  }
  if (plan.redis) probes.push(probeRedis(target).then(found));
  if (plan.memcached) probes.push(probeMemcached(target).then(found));
  if (plan.mongodb) probes.push(probeMongodb(target).then(found));
  await Promise.allSettled(probes);
}

/** The handshake, `GET /` on the same connection, then, when that answered HTTP, `GET /version` on a second. */
async function probeTlsPort(target: ProbeTarget, settings: ProbeSettings, findings: PortFindings, found: (access: AccessFacts | null) => void): Promise<void> {
  const session = await tlsHandshake(target, settings.context, settings.ptr, settings.now);
  if (session === null) return;
  findings.tls = session.facts;
  const host = hostHeader(target, settings.ptr, true);
  const response = await requestHttp(session.connection, '/', host).finally(() => session.connection.close());
  if (response === null) return;
  findings.tlsHttp = httpFacts(response, true);
  found(recognizeElasticsearch(response, target.port));
  const version = await probeHttp(target, '/version', host, tlsOptions(settings.context, settings.ptr));
  if (version !== null) found(recognizeDocker(version, target.port));
}
