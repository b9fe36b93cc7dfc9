// DNS (port 53): does the server resolve a name it does not own for a
// stranger (an open resolver, Shadowserver's "Open DNS Resolvers" report),
// and which software and version it names for `version.bind`.

import { printableText } from '../../exposure/printable-text.js';
import {
  DNS_CLASS,
  DNS_FLAG,
  DNS_TYPE,
  type DnsMessage,
  type DnsQuestion,
  dnsQuery,
  isSameQuestion,
  rcodeName,
  readDnsMessage,
  readTxtStrings,
} from './dns-message.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

/** The name the recursion query asks for: one no scanned server owns, which every resolver can find. */
export const DNS_PROBE_NAME = 'example.com';

const RECURSION_QUESTION: DnsQuestion = { name: DNS_PROBE_NAME, type: DNS_TYPE.a, class: DNS_CLASS.in };
const VERSION_QUESTION: DnsQuestion = { name: 'version.bind', type: DNS_TYPE.txt, class: DNS_CLASS.chaos };
const QUERIES = [
  { id: 0x5c01, question: RECURSION_QUESTION },
  { id: 0x5c02, question: VERSION_QUESTION },
] as const;

/** The reply to query `index`, if it is one: its id, a response, the question echoed. */
function replyTo(index: number, reply: Uint8Array): DnsMessage | null {
  const query = QUERIES[index];
  const message = readDnsMessage(reply);
  if (query === undefined || message === null) return null;
  if (message.id !== query.id || (message.flags & DNS_FLAG.response) === 0 || !isSameQuestion(message.questions[0], query.question)) return null;
  return message;
}

function readRecursion(message: DnsMessage): UdpReading {
  const recursionAvailable = (message.flags & DNS_FLAG.recursionAvailable) !== 0;
  const rcode = rcodeName(message.flags & 0x0f);
  const answers = message.answers.length;
  const recursive = recursionAvailable && rcode === 'NOERROR' && answers > 0;
  const evidence = recursive
    ? `resolved ${DNS_PROBE_NAME} for a stranger with ${answers} answer record${answers === 1 ? '' : 's'}: an open resolver`
    : `answered a recursive query for ${DNS_PROBE_NAME} with ${rcode}, ${answers} answer records, recursion ${recursionAvailable ? 'offered' : 'not offered'}`;
  return { evidence, details: { recursion_available: recursionAvailable, rcode, answers, recursive } };
}

function readVersion(message: DnsMessage): UdpReading {
  const txt = message.answers.find((record) => record.type === DNS_TYPE.txt);
  const strings = txt === undefined ? null : readTxtStrings(txt.data);
  const version = strings === null || strings.length === 0 ? null : printableText(strings.join(' '));
  const evidence = version === null ? `answered version.bind without a version (${rcodeName(message.flags & 0x0f)})` : `names its version: ${version}`;
  return { evidence, details: { version } };
}

export const dnsProbe: UdpProbe = {
  service: 'dns',
  port: 53,
  requests: [
    { name: `recursive A query for ${DNS_PROBE_NAME}`, bytes: dnsQuery(QUERIES[0].id, DNS_FLAG.recursionDesired, RECURSION_QUESTION) },
    { name: 'CHAOS TXT query for version.bind', bytes: dnsQuery(QUERIES[1].id, 0, VERSION_QUESTION) },
  ],
  read(request, reply) {
    const message = replyTo(request, reply);
    if (message === null) return null;
    return request === 0 ? readRecursion(message) : readVersion(message);
  },
};
