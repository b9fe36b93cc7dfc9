// mDNS (port 5353): the DNS-SD meta-query for every service type the host
// offers, with the unicast-response (QU) bit so the answer comes back to
// the asker rather than to the link's multicast group. mDNS is for the
// local network; an answer from the internet leaks names and amplifies
// (Shadowserver's "Open mDNS" report).

import { printableText } from '../../exposure/printable-text.js';
import { DNS_CLASS, DNS_FLAG, DNS_TYPE, dnsQuery, readDnsMessage, readDnsName } from './dns-message.js';
import type { UdpProbe } from './udp-probe.js';

const SERVICES_NAME = '_services._dns-sd._udp.local';
/** The question's class with the top bit set: "unicast response wanted" (RFC 6762 §5.4). */
const UNICAST_RESPONSE = 0x8000;
/** The header's opcode bits: an answer is a standard query's (opcode 0). */
const DNS_OPCODE_MASK = 0x7800;
/** PTR targets named in the details, at most. */
const MAX_NAMES = 5;

export const mdnsProbe: UdpProbe = {
  service: 'mdns',
  port: 5353,
  requests: [
    {
      name: `mDNS PTR query for ${SERVICES_NAME}, unicast response`,
      bytes: dnsQuery(0, 0, { name: SERVICES_NAME, type: DNS_TYPE.ptr, class: DNS_CLASS.in | UNICAST_RESPONSE }),
    },
  ],
  read(_request, reply) {
    const message = readDnsMessage(reply);
    if (message === null || message.id !== 0 || (message.flags & DNS_FLAG.response) === 0 || (message.flags & DNS_OPCODE_MASK) !== 0) return null;
    const records = [...message.answers, ...message.additionals];
    if (records.length === 0) return null;
    const targets: string[] = [];
    for (const record of records) {
      if (record.type !== DNS_TYPE.ptr || targets.length >= MAX_NAMES) continue;
      const target = readDnsName(reply, record.dataOffset);
      if (target !== null && target.end <= record.dataOffset + record.data.length) targets.push(target.name);
    }
    const names = targets.length === 0 ? null : printableText(targets.join(', '));
    const answers = message.answers.length;
    return {
      evidence: `answers mDNS queries from afar with ${answers} answer record${answers === 1 ? '' : 's'}${names === null ? '' : `: ${names}`}`,
      details: { answers, names },
    };
  },
};
