// NetBIOS name service (port 137): a node status (NBSTAT) request for the
// wildcard name `*`, as `nmblookup -A` sends. The answer lists the host's
// NetBIOS names (host, workgroup, logged-on services) and its MAC address
// (Shadowserver's "Accessible NetBIOS" report).

import { printableText } from '../../exposure/printable-text.js';
import { DNS_FLAG, dnsQuery, readDnsMessage } from './dns-message.js';
import type { UdpProbe } from './udp-probe.js';

const TRANSACTION_ID = 0x4e42;
const NBSTAT = 0x21;
const CLASS_IN = 1;
const NAME_ENTRY_BYTES = 18;
const MAC_BYTES = 6;

/** A NetBIOS name in the first-level encoding (RFC 1001 §14.1): 16 bytes padded with NULs, each nibble as 'A' + nibble. */
function encodeNetbiosName(name: string): string {
  const padded = name.padEnd(16, '\0');
  return Array.from(padded, (char) => String.fromCharCode(0x41 + (char.charCodeAt(0) >> 4), 0x41 + (char.charCodeAt(0) & 0x0f))).join('');
}

/** `NAME<xx>` of each 18-byte entry: 15 characters of name, the suffix byte in hex, two bytes of flags. */
function readNames(data: Uint8Array, count: number): string[] {
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const entry = data.subarray(1 + i * NAME_ENTRY_BYTES, 1 + (i + 1) * NAME_ENTRY_BYTES);
    const name = new TextDecoder('latin1').decode(entry.subarray(0, 15)).trimEnd();
    names.push(`${name}<${entry[15]!.toString(16).padStart(2, '0')}>`);
  }
  return names;
}

export const netbiosProbe: UdpProbe = {
  service: 'netbios',
  port: 137,
  requests: [
    { name: 'NetBIOS node status (NBSTAT) request for *', bytes: dnsQuery(TRANSACTION_ID, 0, { name: encodeNetbiosName('*'), type: NBSTAT, class: CLASS_IN }) },
  ],
  read(_request, reply) {
    const message = readDnsMessage(reply);
    if (message === null || message.id !== TRANSACTION_ID || (message.flags & DNS_FLAG.response) === 0) return null;
    const status = message.answers.find((record) => record.type === NBSTAT);
    if (status === undefined || status.data.length < 1) return null;
    const count = status.data[0]!;
    const statisticsAt = 1 + count * NAME_ENTRY_BYTES;
    if (status.data.length < statisticsAt) return null;
    const names = printableText(readNames(status.data, count).join(', '));
    const unitId = status.data.subarray(statisticsAt, statisticsAt + MAC_BYTES);
    const mac = unitId.length === MAC_BYTES ? Array.from(unitId, (byte) => byte.toString(16).padStart(2, '0')).join(':') : null;
    return { evidence: `answers NetBIOS node status with ${count} names: ${names}`, details: { names, mac } };
  },
};
