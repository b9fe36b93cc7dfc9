// QOTD, quote of the day (port 17, RFC 865): answers any datagram with a
// quote, a reflector (Shadowserver's "Open QOTD" report). Any answer is
// QOTD's: there is nothing in it to check.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe } from './udp-probe.js';

export const qotdProbe: UdpProbe = {
  service: 'qotd',
  port: 17,
  requests: [{ name: 'one-byte datagram (QOTD answers any)', bytes: Uint8Array.of(0x0a) }],
  read(_request, reply) {
    const quote = printableText(new TextDecoder('latin1').decode(reply.subarray(0, 1024)).trim());
    return { evidence: `answered a 1-byte datagram with a ${reply.length}-byte quote`, details: { quote } };
  },
};
