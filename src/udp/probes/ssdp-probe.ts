// SSDP (port 1900): the UPnP discovery search for every device and service
// (`ST: ssdp:all`), sent to one host instead of the multicast group. A
// device that answers it from the internet is a reflector (Shadowserver's
// "Open SSDP" report); the answer names its server software.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe } from './udp-probe.js';

const M_SEARCH = ['M-SEARCH * HTTP/1.1', 'HOST: 239.255.255.250:1900', 'MAN: "ssdp:discover"', 'MX: 1', 'ST: ssdp:all', '', ''].join('\r\n');

/** The value of header `name` (any case) among `lines`, printable, or null. */
function header(lines: readonly string[], name: string): string | null {
  const prefix = `${name.toLowerCase()}:`;
  const line = lines.find((candidate) => candidate.toLowerCase().startsWith(prefix));
  return line === undefined ? null : printableText(line.slice(prefix.length).trim());
}

export const ssdpProbe: UdpProbe = {
  service: 'ssdp',
  port: 1900,
  requests: [{ name: 'SSDP M-SEARCH ssdp:all', bytes: new TextEncoder().encode(M_SEARCH) }],
  read(_request, reply) {
    const lines = new TextDecoder('latin1').decode(reply).split(/\r?\n/);
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
    if (status === null) return null;
    const server = header(lines, 'server');
    return {
      evidence: `answers SSDP discovery (HTTP ${status[1]})${server === null ? '' : `: ${server}`}`,
      details: { server, st: header(lines, 'st'), location: header(lines, 'location') },
    };
  },
};
