// NTP (port 123): a time request every server answers (its version and
// stratum), then the two queries Shadowserver reports as amplifiers: mode 6
// READVAR (the control query; its `system`/`version` variables leak the
// build) and mode 7 MON_GETLIST_1 (monlist: the last 600 clients in a few
// bytes' request). A mode 7 error still shows mode 7 answers.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const NTP_VERSION = 4;
const MODE = { client: 3, server: 4, control: 6, private: 7 } as const;
/** The client's transmit timestamp; a real server echoes it as the reply's origin timestamp. */
const TRANSMIT_TIMESTAMP = Uint8Array.of(0xe9, 0x5c, 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc);
const CONTROL_READVAR = 2;
const CONTROL_SEQUENCE = 1;
const IMPLEMENTATION_XNTPD = 3;
const REQUEST_MON_GETLIST_1 = 42;

function clientRequest(): Uint8Array {
  const packet = new Uint8Array(48);
  packet[0] = (NTP_VERSION << 3) | MODE.client;
  packet.set(TRANSMIT_TIMESTAMP, 40);
  return packet;
}

/** NTPv2 mode 6: flags/opcode, sequence, status, association id, offset, count, all zero but opcode and sequence. */
const readvarRequest = Uint8Array.of((2 << 3) | MODE.control, CONTROL_READVAR, 0, CONTROL_SEQUENCE, 0, 0, 0, 0, 0, 0, 0, 0);
/** NTPv2 mode 7: no auth, sequence 0, implementation, request code, no items. */
const monlistRequest = Uint8Array.of((2 << 3) | MODE.private, 0, IMPLEMENTATION_XNTPD, REQUEST_MON_GETLIST_1, 0, 0, 0, 0);

function readTime(reply: Uint8Array): UdpReading | null {
  if (reply.length < 48 || (reply[0]! & 7) !== MODE.server) return null;
  if (!TRANSMIT_TIMESTAMP.every((byte, i) => reply[24 + i] === byte)) return null;
  const version = (reply[0]! >> 3) & 7;
  const stratum = reply[1]!;
  return { evidence: `answers NTPv${version} time requests at stratum ${stratum}`, details: { version, stratum, mode: MODE.server } };
}

/** The text of variable `name` in a mode 6 variable list (`a=1, system="Linux", ...`), quotes dropped. */
function variable(text: string, name: string): string | null {
  const match = new RegExp(`(?:^|[,\\s])${name}=("[^"]*"?|[^,]*)`).exec(text);
  return match === null ? null : printableText(match[1]!.replace(/^"|"$/g, '').trim());
}

function readControl(reply: Uint8Array): UdpReading | null {
  if (reply.length < 12 || (reply[0]! & 7) !== MODE.control || (reply[1]! & 0x9f) !== (0x80 | CONTROL_READVAR)) return null;
  if (((reply[2]! << 8) | reply[3]!) !== CONTROL_SEQUENCE) return null;
  const count = (reply[10]! << 8) | reply[11]!;
  if (12 + count > reply.length) return null;
  const text = new TextDecoder('latin1').decode(reply.subarray(12, 12 + count));
  const system = variable(text, 'system') ?? variable(text, 'version');
  return { evidence: `answers mode 6 control queries${system === null ? '' : `: ${system}`}`, details: { mode6: true, system } };
}

function readPrivate(reply: Uint8Array): UdpReading | null {
  if (reply.length < 8 || (reply[0]! & 0x87) !== (0x80 | MODE.private) || reply[2] !== IMPLEMENTATION_XNTPD || reply[3] !== REQUEST_MON_GETLIST_1) return null;
  const error = reply[4]! >> 4;
  if (error !== 0) {
    return { evidence: `answers mode 7 (monlist) queries, with error ${error}`, details: { mode7: true, mode7_error: error, monlist_entries: null } };
  }
  const entries = ((reply[4]! & 0x0f) << 8) | reply[5]!;
  const itemSize = ((reply[6]! & 0x0f) << 8) | reply[7]!;
  if (8 + entries * itemSize > reply.length) return null;
  return { evidence: `answers mode 7 monlist queries with ${entries} recent clients`, details: { mode7: true, mode7_error: null, monlist_entries: entries } };
}

export const ntpProbe: UdpProbe = {
  service: 'ntp',
  port: 123,
  requests: [
    { name: 'NTPv4 client time request', bytes: clientRequest() },
    { name: 'NTP mode 6 READVAR (control)', bytes: readvarRequest },
    { name: 'NTP mode 7 MON_GETLIST_1 (monlist)', bytes: monlistRequest },
  ],
  read(request, reply) {
    if (request === 0) return readTime(reply);
    if (request === 1) return readControl(reply);
    if (request === 2) return readPrivate(reply);
    return null;
  },
};
