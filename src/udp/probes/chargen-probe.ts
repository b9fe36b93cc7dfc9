// chargen (port 19, RFC 864): answers any datagram with up to 512 bytes of
// characters, a classic reflector (Shadowserver's "Open Chargen" report).
// Any answer is chargen's: there is nothing in it to check.
import type { UdpProbe } from './udp-probe.js';

export const chargenProbe: UdpProbe = {
  service: 'chargen',
  port: 19,
  requests: [{ name: 'one-byte datagram (chargen answers any)', bytes: Uint8Array.of(0x0a) }],
  read(_request, reply) {
    return { evidence: `answered a 1-byte datagram with ${reply.length} bytes of characters`, details: { bytes: reply.length } };
  },
};
