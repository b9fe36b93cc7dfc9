// Memcached (port 11211): `stats` over UDP, behind the 8-byte UDP frame
// header (request id, sequence, datagram count, reserved). A server that
// answers it over UDP is the amplifier of the 2018 attacks (Shadowserver's
// "Accessible Memcached" report); the answer names its version.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe } from './udp-probe.js';

const REQUEST_ID = 0x4d43;
const FRAME_HEADER_BYTES = 8;

function statsRequest(): Uint8Array {
  const command = new TextEncoder().encode('stats\r\n');
  const packet = new Uint8Array(FRAME_HEADER_BYTES + command.length);
  packet.set([REQUEST_ID >> 8, REQUEST_ID & 0xff, 0, 0, 0, 1, 0, 0]);
  packet.set(command, FRAME_HEADER_BYTES);
  return packet;
}

/** The `STAT name value` lines of a stats answer, by name. */
function stats(text: string): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = /^STAT (\S+) (.*?)\r?$/.exec(line);
    if (match !== null) values.set(match[1]!, match[2]!);
  }
  return values;
}

function count(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : null;
}

export const memcachedProbe: UdpProbe = {
  service: 'memcached',
  port: 11211,
  requests: [{ name: 'memcached stats over UDP', bytes: statsRequest() }],
  read(_request, reply) {
    if (reply.length < FRAME_HEADER_BYTES || ((reply[0]! << 8) | reply[1]!) !== REQUEST_ID) return null;
    const values = stats(new TextDecoder('latin1').decode(reply.subarray(FRAME_HEADER_BYTES)));
    if (values.size === 0) return null;
    const version = values.has('version') ? printableText(values.get('version')!) : null;
    return {
      evidence: `answers memcached stats over UDP${version === null ? '' : `: version ${version}`}`,
      details: { version, uptime: count(values.get('uptime')), curr_connections: count(values.get('curr_connections')) },
    };
  },
};
