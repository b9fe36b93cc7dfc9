// IKE (ISAKMP, RFC 2408/2409) on UDP 500: an IKEv1 Main Mode initiator
// packet, one SA proposal of four common transforms (AES or 3DES, SHA-2,
// SHA-1 or MD5, pre-shared key, MODP 1024/2048), from a fixed initiator
// cookie. IKEv1 rather than IKEv2's IKE_SA_INIT: every IPsec stack still
// answers it (strongSwan, libreswan and the router vendors answer with
// their SA or a NO-PROPOSAL-CHOSEN notify; IKEv1-only gear ignores IKEv2),
// it needs no Diffie-Hellman key or nonce, and it is what ike-scan, nmap
// and Shadowserver's ISAKMP scan send. An IKEv2-only responder's notify
// (e.g. INVALID_MAJOR_VERSION) is read too.
import type { UdpProbe, UdpReading } from './udp-probe.js';

const INITIATOR_COOKIE = Uint8Array.of(0x53, 0x45, 0x4c, 0x46, 0x73, 0x63, 0x61, 0x6e);
const HEADER_BYTES = 28;
const PAYLOAD = { none: 0, sa: 1, transform: 3, notifyV1: 11, notifyV2: 41 } as const;
const VERSION_1_0 = 0x10;
const EXCHANGE_MAIN_MODE = 2;
const DOI_IPSEC = 1;
const SITUATION_IDENTITY_ONLY = 1;
const PROTOCOL_ISAKMP = 1;
const TRANSFORM_KEY_IKE = 1;
/** Transform attributes, all basic (type with the AF bit, 16-bit value). */
const ATTRIBUTE = { encryption: 1, hash: 2, authMethod: 3, group: 4, lifeType: 11, lifeDuration: 12, keyLength: 14 } as const;
const ENCRYPTION = { tripleDes: 5, aesCbc: 7 } as const;
const HASH = { md5: 1, sha1: 2, sha256: 4 } as const;
const AUTH_PRESHARED_KEY = 1;
const LIFE_SECONDS = 1;
const LIFE_EIGHT_HOURS = 28_800;
/** Encryption, key length (0: none), hash and MODP group of each transform offered. */
const TRANSFORMS: ReadonlyArray<[number, number, number, number]> = [
  [ENCRYPTION.aesCbc, 256, HASH.sha256, 14],
  [ENCRYPTION.aesCbc, 128, HASH.sha1, 14],
  [ENCRYPTION.tripleDes, 0, HASH.sha1, 2],
  [ENCRYPTION.tripleDes, 0, HASH.md5, 2],
];
/** Notify message types by version, as RFC 2408 and RFC 7296 name them. */
const NOTIFY_NAMES: Readonly<Record<'1' | '2', Readonly<Record<number, string>>>> = {
  '1': {
    1: 'INVALID-PAYLOAD-TYPE',
    2: 'DOI-NOT-SUPPORTED',
    3: 'SITUATION-NOT-SUPPORTED',
    4: 'INVALID-COOKIE',
    5: 'INVALID-MAJOR-VERSION',
    6: 'INVALID-MINOR-VERSION',
    7: 'INVALID-EXCHANGE-TYPE',
    8: 'INVALID-FLAGS',
    9: 'INVALID-MESSAGE-ID',
    12: 'INVALID-TRANSFORM-ID',
    13: 'ATTRIBUTES-NOT-SUPPORTED',
    14: 'NO-PROPOSAL-CHOSEN',
    15: 'BAD-PROPOSAL-SYNTAX',
    16: 'PAYLOAD-MALFORMED',
    24: 'AUTHENTICATION-FAILED',
  },
  '2': {
    1: 'UNSUPPORTED_CRITICAL_PAYLOAD',
    4: 'INVALID_IKE_SPI',
    5: 'INVALID_MAJOR_VERSION',
    7: 'INVALID_SYNTAX',
    9: 'INVALID_MESSAGE_ID',
    14: 'NO_PROPOSAL_CHOSEN',
    17: 'INVALID_KE_PAYLOAD',
    24: 'AUTHENTICATION_FAILED',
    16390: 'COOKIE',
  },
};

const u16 = (value: number): number[] => [value >> 8, value & 0xff];
const u32 = (value: number): number[] => [...u16(value >>> 16), ...u16(value & 0xffff)];
const basicAttribute = (type: number, value: number): number[] => [...u16(0x8000 | type), ...u16(value)];

/** A payload: next payload type, reserved, 16-bit length of it all, then `body`. */
function payload(next: number, body: number[]): number[] {
  return [next, 0, ...u16(4 + body.length), ...body];
}

function transform(number: number, [encryption, keyLength, hash, group]: [number, number, number, number], last: boolean): number[] {
  const attributes = [
    ...basicAttribute(ATTRIBUTE.encryption, encryption),
    ...(keyLength > 0 ? basicAttribute(ATTRIBUTE.keyLength, keyLength) : []),
    ...basicAttribute(ATTRIBUTE.hash, hash),
    ...basicAttribute(ATTRIBUTE.authMethod, AUTH_PRESHARED_KEY),
    ...basicAttribute(ATTRIBUTE.group, group),
    ...basicAttribute(ATTRIBUTE.lifeType, LIFE_SECONDS),
    ...basicAttribute(ATTRIBUTE.lifeDuration, LIFE_EIGHT_HOURS),
  ];
  return payload(last ? PAYLOAD.none : PAYLOAD.transform, [number, TRANSFORM_KEY_IKE, 0, 0, ...attributes]);
}

function mainModeRequest(): Uint8Array {
  const transforms = TRANSFORMS.flatMap((offer, i) => transform(i + 1, offer, i === TRANSFORMS.length - 1));
  const proposal = payload(PAYLOAD.none, [1, PROTOCOL_ISAKMP, 0, TRANSFORMS.length, ...transforms]);
  const sa = payload(PAYLOAD.none, [...u32(DOI_IPSEC), ...u32(SITUATION_IDENTITY_ONLY), ...proposal]);
  const responderCookie = new Array<number>(8).fill(0);
  const header = [...INITIATOR_COOKIE, ...responderCookie, PAYLOAD.sa, VERSION_1_0, EXCHANGE_MAIN_MODE, 0, ...u32(0), ...u32(HEADER_BYTES + sa.length)];
  return Uint8Array.of(...header, ...sa);
}

/** The first notify type of the payload chain, undefined when there is none, or null when the chain is malformed. */
function firstNotify(reply: Uint8Array, length: number, version: '1' | '2'): number | undefined | null {
  const notifyPayload = version === '1' ? PAYLOAD.notifyV1 : PAYLOAD.notifyV2;
  /** Where the notify type sits in its payload: past DOI, protocol and SPI size (IKEv1), or protocol and SPI size (IKEv2). */
  const typeAt = version === '1' ? 10 : 6;
  let next = reply[16]!;
  let found: number | undefined;
  for (let offset = HEADER_BYTES; next !== PAYLOAD.none; ) {
    if (offset + 4 > length) return null;
    const payloadLength = (reply[offset + 2]! << 8) | reply[offset + 3]!;
    if (payloadLength < 4 || offset + payloadLength > length) return null;
    if (next === notifyPayload && found === undefined) {
      if (payloadLength < typeAt + 2) return null;
      found = (reply[offset + typeAt]! << 8) | reply[offset + typeAt + 1]!;
    }
    next = reply[offset]!;
    offset += payloadLength;
  }
  return found;
}

function readIke(_request: number, reply: Uint8Array): UdpReading | null {
  if (reply.length < HEADER_BYTES || INITIATOR_COOKIE.some((byte, i) => reply[i] !== byte)) return null;
  const major = reply[17]! >> 4;
  if (major !== 1 && major !== 2) return null;
  const version = major === 1 ? '1' : '2';
  const length = ((reply[24]! << 24) | (reply[25]! << 16) | (reply[26]! << 8) | reply[27]!) >>> 0;
  if (length < HEADER_BYTES || length > reply.length) return null;
  const notifyType = firstNotify(reply, length, version);
  if (notifyType === null) return null;
  const responderCookieSet = reply.subarray(8, 16).some((byte) => byte !== 0);
  // A responder's SA comes with its cookie; without one and without a notify it is our packet echoed.
  if (notifyType === undefined && !responderCookieSet) return null;
  const notify = notifyType === undefined ? null : (NOTIFY_NAMES[version][notifyType] ?? `notify ${notifyType}`);
  return {
    evidence: `answered our IKEv1 Main Mode proposal in IKEv${version}${notify ? ` with notify ${notify}` : reply[16] === PAYLOAD.sa ? ' with its SA' : ''}`,
    details: { version, responder_cookie_set: responderCookieSet, notify },
  };
}

export const ikeProbe: UdpProbe = {
  service: 'ike',
  port: 500,
  requests: [{ name: 'IKEv1 Main Mode SA proposal', bytes: mainModeRequest() }],
  read: readIke,
};
