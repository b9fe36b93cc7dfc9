// SNMP (port 161): a GetRequest of sysDescr.0 with the community everyone
// tries, `public`, in SNMPv2c and then SNMPv1 (Shadowserver's "Accessible
// SNMP" report): an answer means anyone can read the agent's data, and
// walks of it amplify.

import { printableText } from '../../exposure/printable-text.js';
import { BER_TAG, berContext, berInteger, berIntegerValue, berNull, berOctetString, berOid, berSequence, readBer, readBerChildren } from './ber.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const COMMUNITY = 'public';
const SYS_DESCR = '1.3.6.1.2.1.1.1.0';
const PDU = { getRequest: 0, getResponse: 2 } as const;
/** Per request: the version as the message numbers it (RFC 3416: 1 is v2c, 0 is v1), its name, the request id. */
const VERSIONS = [
  { number: 1, name: 'v2c', requestId: 0x5e1f01 },
  { number: 0, name: 'v1', requestId: 0x5e1f02 },
] as const;

function getRequest(version: number, requestId: number): Uint8Array {
  const varbinds = berSequence(berSequence(berOid(SYS_DESCR), berNull()));
  const pdu = berContext(PDU.getRequest, [berInteger(requestId), berInteger(0), berInteger(0), varbinds]);
  return berSequence(berInteger(version), berOctetString(COMMUNITY), pdu);
}

/** The GetResponse's error status and first value, if `reply` answers the request of `version`. */
function readResponse(
  version: (typeof VERSIONS)[number],
  reply: Uint8Array,
): { errorStatus: number; value: { tag: number; content: Uint8Array } | null } | null {
  const message = readBer(reply);
  if (message === null || message.tag !== BER_TAG.sequence) return null;
  const [versionField, , pdu] = readBerChildren(message.content) ?? [];
  if (versionField?.tag !== BER_TAG.integer || berIntegerValue(versionField.content) !== version.number) return null;
  if (pdu?.tag !== (0xa0 | PDU.getResponse)) return null;
  const [requestId, errorStatus, , varbinds] = readBerChildren(pdu.content) ?? [];
  if (requestId?.tag !== BER_TAG.integer || berIntegerValue(requestId.content) !== version.requestId) return null;
  if (errorStatus?.tag !== BER_TAG.integer || varbinds?.tag !== BER_TAG.sequence) return null;
  const status = berIntegerValue(errorStatus.content);
  const first = readBerChildren(varbinds.content)?.[0];
  const pair = first?.tag === BER_TAG.sequence ? readBerChildren(first.content) : null;
  const value = pair?.length === 2 ? pair[1]! : null;
  return status === null ? null : { errorStatus: status, value };
}

function reading(version: (typeof VERSIONS)[number], reply: Uint8Array): UdpReading | null {
  const response = readResponse(version, reply);
  if (response === null) return null;
  const text = response.value?.tag === BER_TAG.octetString ? new TextDecoder('latin1').decode(response.value.content) : null;
  const sysDescr = text === null ? null : printableText(text);
  const evidence =
    sysDescr === null
      ? `answers SNMP${version.name} with community ${COMMUNITY} (error status ${response.errorStatus}, no sysDescr)`
      : `answers SNMP${version.name} with community ${COMMUNITY}: ${sysDescr}`;
  return { evidence, details: { version: version.name, community: COMMUNITY, sys_descr: sysDescr } };
}

export const snmpProbe: UdpProbe = {
  service: 'snmp',
  port: 161,
  requests: VERSIONS.map((version) => ({
    name: `SNMP${version.name} GetRequest sysDescr.0, community ${COMMUNITY}`,
    bytes: getRequest(version.number, version.requestId),
  })),
  read(request, reply) {
    const version = VERSIONS[request];
    return version === undefined ? null : reading(version, reply);
  },
};
