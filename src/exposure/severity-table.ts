// The one table of how risky an open port is (its UDP rows in
// udp-severity.ts), after Shadowserver's public
// severities: a control API or data store that serves anyone is critical
// or high, remote desktops, file shares and databases are high, cleartext
// logins medium, a certificate that lapsed or will lapse soon raises a TLS
// port. Every rule that applies is weighed; the worst one speaks.
import { ACCESS_SERVICE_NAMES } from '../api/access-service-names.js';
import type { Port } from '../api/port.js';
import type { AccessFacts, PortRisk, TlsFacts } from '../api/port-facts.js';
import { severityRank } from '../api/severity-levels.js';
import { assessUdpPort } from './udp-severity.js';

/** A certificate with fewer days left than this raises its port to medium. */
export const CERT_SOON_DAYS = 14;

/** Services judged by the port they listen on (none of them has a harmless probe of its own here). */
const BY_PORT: ReadonlyMap<number, (port: number) => PortRisk> = new Map([
  [23, (port) => cleartext(port, 'Telnet', 'SSH')],
  [21, (port) => cleartext(port, 'FTP', 'SFTP or FTPS')],
  [3389, (port) => remote(port, 'Remote Desktop (RDP)')],
  [5900, (port) => remote(port, 'VNC')],
  [5901, (port) => remote(port, 'VNC')],
  [445, (port) => share(port, 'SMB')],
  [139, (port) => share(port, 'NetBIOS')],
  [3306, (port) => database(port, 'MySQL')],
  [5432, (port) => database(port, 'PostgreSQL')],
  [1433, (port) => database(port, 'Microsoft SQL Server')],
  [1521, (port) => database(port, 'Oracle')],
]);

/** The severity of open `port` from what is known of it. */
export function assessPort(port: Port): PortRisk {
  if (port.facts?.udp !== undefined) return assessUdpPort(port.port, port.facts.udp);
  const risks: PortRisk[] = [];
  const byPort = BY_PORT.get(port.port);
  if (byPort !== undefined) risks.push(byPort(port.port));
  if (port.facts?.access !== undefined) risks.push(accessRisk(port.port, port.facts.access));
  if (port.facts?.tls !== undefined) {
    const tlsRisk = certificateRisk(port.port, port.facts.tls);
    if (tlsRisk !== null) risks.push(tlsRisk);
  }
  let worst: PortRisk = {
    severity: 'info',
    why: `Port ${port.port} is open and answers; nothing known about it is risky.`,
    fix: `Keep port ${port.port} open only if the world is meant to reach it.`,
  };
  for (const risk of risks) if (severityRank(risk.severity) > severityRank(worst.severity)) worst = risk;
  return worst;
}

function accessRisk(port: number, access: AccessFacts): PortRisk {
  const name = ACCESS_SERVICE_NAMES[access.service];
  if (access.auth_required) {
    return {
      severity: 'medium',
      why: `${name} on port ${port} asks for credentials, but anyone on the internet can try them.`,
      fix: `Reach ${name} over a private network or VPN and close port ${port} to the internet.`,
    };
  }
  if (access.service === 'docker') {
    return {
      severity: 'critical',
      why: `${name} on port ${port} answers without credentials: anyone can run containers, and so commands as root, on this host.`,
      fix: `Close port ${port} now, or require TLS client certificates for the Docker API.`,
    };
  }
  return {
    severity: 'high',
    why: `${name} on port ${port} answers without credentials: anyone can read its data, and often change it.`,
    fix: `Turn on authentication in ${name} and close port ${port} to the internet.`,
  };
}

function certificateRisk(port: number, tls: TlsFacts): PortRisk | null {
  if (tls.days_left < 0) {
    return {
      severity: 'high',
      why: `The certificate on port ${port} expired ${-tls.days_left} day(s) ago: clients refuse it or learn to click through warnings.`,
      fix: `Renew the certificate on port ${port}.`,
    };
  }
  if (tls.days_left < CERT_SOON_DAYS) {
    return {
      severity: 'medium',
      why: `The certificate on port ${port} expires in ${tls.days_left} day(s).`,
      fix: `Renew the certificate on port ${port} before it expires, and check that renewal is automatic.`,
    };
  }
  if (tls.self_signed || !tls.trusted) {
    return {
      severity: 'low',
      why: `The certificate on port ${port} is ${tls.self_signed ? 'self-signed' : 'not from a trusted authority'}: clients cannot tell it from an impostor's.`,
      fix: `Use a certificate from a trusted authority on port ${port} (Let's Encrypt is free).`,
    };
  }
  if (tls.name_matches === false) {
    return {
      severity: 'low',
      why: `The certificate on port ${port} is not valid for ${tls.sni ?? 'the name of this address'}.`,
      fix: `Serve a certificate that names ${tls.sni ?? 'this host'} on port ${port}.`,
    };
  }
  return null;
}

function cleartext(port: number, name: string, instead: string): PortRisk {
  return {
    severity: 'medium',
    why: `${name} on port ${port} sends passwords in clear text.`,
    fix: `Replace ${name} with ${instead}, or close port ${port}.`,
  };
}

function remote(port: number, name: string): PortRisk {
  return {
    severity: 'high',
    why: `${name} on port ${port} is a login that attackers try passwords and exploits against all day.`,
    fix: `Reach ${name} only over a VPN or from known addresses, and close port ${port} to the internet.`,
  };
}

function share(port: number, name: string): PortRisk {
  return {
    severity: 'high',
    why: `${name} file sharing on port ${port} is open to the internet, where worms and ransomware look for it.`,
    fix: `Close port ${port} to the internet; share files over a VPN.`,
  };
}

function database(port: number, name: string): PortRisk {
  return {
    severity: 'high',
    why: `The ${name} database on port ${port} takes logins from the whole internet.`,
    fix: `Let ${name} listen on a private address only, or allow port ${port} from known addresses.`,
  };
}
