// The UDP rows of the one severity table (severity-table.ts has the TCP
// rows): how bad a UDP service that answers the internet is, after
// Shadowserver's daily reports of reflectors and leaks. A service that
// answers a small request with a much larger one can be aimed at a third
// party with a forged source address; the worst of them (memcached, whose
// answers reached 51,000× in the 2018 attacks) is critical. What the probe's
// replies showed (a recursive resolver, NTP's monlist) decides where the
// port alone does not.
import type { PortRisk, UdpFacts } from '../api/port-facts.js';
import { severityRank } from '../api/severity-levels.js';
import { UDP_SERVICE_NAMES, type UdpService } from '../api/udp-services.js';

/** An answer this many times the request's size makes any service at least medium, and ten times that high. */
export const AMPLIFIER_FACTOR = 5;

type Rule = (port: number, label: string, details: UdpFacts['details']) => PortRisk | null;

const reflector =
  (severity: PortRisk['severity'], use: string): Rule =>
  (port, label) => ({
    severity,
    why: `${label} on UDP port ${port} answers anyone: ${use}`,
    fix: `Close UDP port ${port} to the internet (firewall), or bind ${label} to a private address.`,
  });

/** Each service's rule; null where only the generic amplification rule speaks. */
const BY_SERVICE: Readonly<Record<UdpService, Rule>> = {
  memcached: reflector('critical', 'it can reflect attacks at tens of thousands of times their size, as in the 2018 attacks of 1.7 Tbit/s.'),
  dns: (port, label, details) =>
    details.recursive === true
      ? {
          severity: 'high',
          why: `${label} on UDP port ${port} resolves names it does not own for anyone: an open resolver, used to amplify attacks and to poison caches.`,
          fix: 'Allow recursion only for your own networks (e.g. `allow-recursion` / `access-control`), or close the port.',
        }
      : null,
  ntp: (port, label, details) => {
    if (details.mode7 === true) {
      return {
        severity: 'high',
        why: `${label} on UDP port ${port} answers mode 7 (monlist) queries: one small request returns the last 600 clients, an amplifier.`,
        fix: 'Upgrade ntpd, or add `disable monitor` and `restrict default noquery`; chrony never answers mode 7.',
      };
    }
    if (details.mode6 === true) {
      return {
        severity: 'medium',
        why: `${label} on UDP port ${port} answers mode 6 control queries from anyone: they leak its configuration and amplify.`,
        fix: 'Add `restrict default noquery` (ntpd), or close the port to the internet.',
      };
    }
    return null;
  },
  snmp: reflector('high', 'community `public` reads its system description and more, and its answers amplify.'),
  ssdp: reflector('high', 'SSDP discovery answers are used to reflect and amplify attacks; it is meant for the local network only.'),
  chargen: reflector('high', 'chargen answers every datagram with a stream of characters, a classic reflector.'),
  qotd: reflector('medium', 'QOTD answers every datagram with a quote, a reflector.'),
  cldap: reflector('high', 'CLDAP answers reflect attacks at dozens of times their size.'),
  'ws-discovery': reflector('high', 'WS-Discovery answers reflect attacks at up to hundreds of times their size; it is meant for the local network only.'),
  ipmi: reflector('high', 'a server management controller (BMC) on the internet can be attacked for control of the machine.'),
  mdns: reflector('medium', 'mDNS leaks the names and services of this host and amplifies; it is meant for the local network only.'),
  netbios: reflector('medium', 'NetBIOS name service leaks host and workgroup names and amplifies.'),
  portmap: reflector('medium', 'the RPC portmapper lists services to anyone and amplifies.'),
  coap: reflector('medium', 'CoAP answers amplify, and its resources may be readable by anyone.'),
  ubiquiti: reflector('medium', 'the Ubiquiti discovery service leaks device details and amplifies.'),
  mssql: reflector('medium', 'the SQL Server Browser lists database instances to anyone and amplifies.'),
  tftp: reflector('medium', 'TFTP has no authentication: anyone can read the files it serves.'),
  sip: () => null,
  openvpn: () => null,
  ike: () => null,
};

/** The severity of an open UDP port from what its probe's answers showed (`facts.udp`). */
export function assessUdpPort(port: number, udp: UdpFacts): PortRisk {
  const label = UDP_SERVICE_NAMES[udp.service];
  const risks: PortRisk[] = [];
  const byService = BY_SERVICE[udp.service](port, label, udp.details);
  if (byService !== null) risks.push(byService);
  if (udp.amplification >= AMPLIFIER_FACTOR) {
    risks.push({
      severity: udp.amplification >= 10 * AMPLIFIER_FACTOR ? 'high' : 'medium',
      why: `${label} on UDP port ${port} answered ${udp.amplification.toFixed(1)}× the bytes it was sent: an amplifier for attacks with forged source addresses.`,
      fix: `Close UDP port ${port} to the internet, or configure ${label} not to answer strangers.`,
    });
  }
  let worst: PortRisk = {
    severity: 'info',
    why: `${label} on UDP port ${port} answers; nothing known about it is risky.`,
    fix: `Keep UDP port ${port} open only if the world is meant to reach it.`,
  };
  for (const risk of risks) if (severityRank(risk.severity) > severityRank(worst.severity)) worst = risk;
  return worst;
}
