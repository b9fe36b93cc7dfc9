// CLDAP (LDAP over UDP, as Active Directory domain controllers answer it on
// UDP 389): a search of the rootDSE (base "", scope base, filter
// (objectClass=*)) for all its attributes, the request of the reflection
// attacks (an answer of kilobytes to 50 bytes), so the amplification
// measured is the attackers'. The entry names the domain and the host.

import { printableText } from '../../exposure/printable-text.js';
import { BER_TAG, berApplication, berBoolean, berContext, berInteger, berIntegerValue, berOctetString, berSequence, readBer, readBerChildren } from './ber.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const MESSAGE_ID = 0x2f41;
const SEARCH_REQUEST = 3;
const SEARCH_RESULT_ENTRY = 0x64; // [APPLICATION 4], constructed
const SEARCH_RESULT_DONE = 0x65; // [APPLICATION 5], constructed
const SCOPE_BASE = 0;
const NEVER_DEREF_ALIASES = 0;
const FILTER_PRESENT = 7;
/** How many attribute names the details list. */
const NAMES_SHOWN = 20;

function rootDseSearch(): Uint8Array {
  return berSequence(
    berInteger(MESSAGE_ID),
    berApplication(SEARCH_REQUEST, [
      berOctetString(''),
      berInteger(SCOPE_BASE, BER_TAG.enumerated),
      berInteger(NEVER_DEREF_ALIASES, BER_TAG.enumerated),
      berInteger(0),
      berInteger(0),
      berBoolean(false),
      berContext(FILTER_PRESENT, [new TextEncoder().encode('objectClass')], true),
      berSequence(),
    ]),
  );
}

/** What an answer held: the entries, their attributes (type → first value) and the result code. */
interface SearchAnswer {
  entries: number;
  attributes: Map<string, string>;
  resultCode: number | null;
}

/** The attributes of a searchResEntry's content (objectName, then a SEQUENCE of {type, SET of values}) into `into`, or false. */
function readEntry(content: Uint8Array, into: Map<string, string>): boolean {
  const [objectName, attributeList] = readBerChildren(content) ?? [];
  if (objectName?.tag !== BER_TAG.octetString || attributeList?.tag !== BER_TAG.sequence) return false;
  const attributes = readBerChildren(attributeList.content);
  if (attributes === null) return false;
  for (const attribute of attributes) {
    const [type, values] = attribute.tag === BER_TAG.sequence ? (readBerChildren(attribute.content) ?? []) : [];
    if (type?.tag !== BER_TAG.octetString || values?.tag !== BER_TAG.set) return false;
    const first = readBer(values.content);
    const name = new TextDecoder('latin1').decode(type.content);
    if (!into.has(name)) into.set(name, first?.tag === BER_TAG.octetString ? new TextDecoder('utf-8').decode(first.content) : '');
  }
  return true;
}

/** The LDAPMessages that fill `reply`, each with our message id, or null. */
function readAnswer(reply: Uint8Array): SearchAnswer | null {
  const answer: SearchAnswer = { entries: 0, attributes: new Map(), resultCode: null };
  const messages = readBerChildren(reply);
  if (messages === null || messages.length === 0) return null;
  for (const message of messages) {
    const [id, operation] = message.tag === BER_TAG.sequence ? (readBerChildren(message.content) ?? []) : [];
    if (id?.tag !== BER_TAG.integer || berIntegerValue(id.content) !== MESSAGE_ID || operation === undefined) return null;
    if (operation.tag === SEARCH_RESULT_ENTRY) {
      if (!readEntry(operation.content, answer.attributes)) return null;
      answer.entries++;
    } else if (operation.tag === SEARCH_RESULT_DONE) {
      const resultCode = readBer(operation.content);
      if (resultCode?.tag !== BER_TAG.enumerated) return null;
      answer.resultCode = berIntegerValue(resultCode.content);
    } else return null;
  }
  return answer;
}

function readCldap(_request: number, reply: Uint8Array): UdpReading | null {
  const answer = readAnswer(reply);
  if (answer === null) return null;
  const names = [...answer.attributes.keys()];
  const dnsHostName = printableText(answer.attributes.get('dnsHostName') ?? '') || null;
  const outcome = answer.entries > 0 ? `its rootDSE, ${names.length} attributes` : `result code ${answer.resultCode}`;
  return {
    evidence: `answered a rootDSE search over UDP with ${outcome}${dnsHostName ? ` (host ${dnsHostName})` : ''}`,
    details: {
      entries: answer.entries,
      attributes: names.length > 0 ? printableText(names.slice(0, NAMES_SHOWN).join(',')) : null,
      dns_host_name: dnsHostName,
    },
  };
}

export const cldapProbe: UdpProbe = {
  service: 'cldap',
  port: 389,
  requests: [{ name: 'rootDSE search (base "", (objectClass=*), all attributes)', bytes: rootDseSearch() }],
  read: readCldap,
};
