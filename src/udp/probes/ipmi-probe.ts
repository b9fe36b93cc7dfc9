// IPMI (v1.5/v2.0) on UDP 623: over RMCP, the Get Channel Authentication
// Capabilities request outside any session (auth type none), asking for
// the IPMI v2.0 extended data: the ASF/IPMI ping every BMC answers before
// a login. The answer tells the IPMI version, the login methods and
// whether null user names or anonymous login are allowed.
import type { UdpProbe, UdpReading } from './udp-probe.js';

const RMCP_HEADER = [0x06, 0x00, 0xff, 0x07]; // version 1.0, reserved, no ACK wanted, class IPMI
const BMC_ADDRESS = 0x20;
const REMOTE_CONSOLE_ADDRESS = 0x81;
const NETFN_APP_REQUEST = 0x06;
const NETFN_APP_RESPONSE = 0x07;
const GET_CHANNEL_AUTH_CAPABILITIES = 0x38;
/** Channel 0x0e (this one) with bit 7: the IPMI v2.0 extended data wanted. */
const CHANNEL_WITH_V2_DATA = 0x8e;
const PRIVILEGE_ADMINISTRATOR = 0x04;
const AUTH_TYPE_NONE = 0x00;
/** RMCP header, then auth type, session sequence and session id (zero), message length. */
const SESSION_HEADER_BYTES = 4 + 1 + 4 + 4;
const AUTH_CODE_BYTES = 16;
/** A response message: rqAddr, netFn/LUN, checksum, rsAddr, rqSeq/LUN, command, completion code, then 8 data bytes. */
const MIN_RESPONSE_BYTES = 7 + 8;
const AUTH_TYPE_NAMES: ReadonlyArray<[number, string]> = [
  [0x01, 'none'],
  [0x02, 'MD2'],
  [0x04, 'MD5'],
  [0x10, 'password'],
  [0x20, 'OEM'],
];
const V2_EXTENDED_DATA = 0x80;
const SUPPORTS_V2 = 0x02;
const NULL_USERNAMES = 0x02;
const ANONYMOUS_LOGIN = 0x01;

/** The two's-complement checksum IPMI puts after each part of a message: the part and it sum to zero. */
function checksum(bytes: readonly number[]): number {
  return -bytes.reduce((sum, byte) => sum + byte, 0) & 0xff;
}

function getChannelAuthCapabilities(): Uint8Array {
  const header = [BMC_ADDRESS, NETFN_APP_REQUEST << 2];
  const body = [REMOTE_CONSOLE_ADDRESS, 0x00, GET_CHANNEL_AUTH_CAPABILITIES, CHANNEL_WITH_V2_DATA, PRIVILEGE_ADMINISTRATOR];
  const message = [...header, checksum(header), ...body, checksum(body)];
  return Uint8Array.of(...RMCP_HEADER, AUTH_TYPE_NONE, 0, 0, 0, 0, 0, 0, 0, 0, message.length, ...message);
}

/** The IPMI message after the session header (and its auth code, if any), or null when the reply is not one. */
function messageOf(reply: Uint8Array): Uint8Array | null {
  if (reply.length < SESSION_HEADER_BYTES + 1 || RMCP_HEADER.some((byte, i) => reply[i] !== byte)) return null;
  const authType = reply[4]!;
  if (authType > 0x05 || authType === 0x03) return null;
  const lengthAt = SESSION_HEADER_BYTES + (authType === AUTH_TYPE_NONE ? 0 : AUTH_CODE_BYTES);
  const length = reply[lengthAt];
  if (length === undefined || lengthAt + 1 + length > reply.length) return null;
  return reply.subarray(lengthAt + 1, lengthAt + 1 + length);
}

function readIpmi(_request: number, reply: Uint8Array): UdpReading | null {
  const message = messageOf(reply);
  if (message === null || message.length < 7) return null;
  const [rqAddr, netFn, headerSum, rsAddr, , command, completion] = message;
  if (rqAddr !== REMOTE_CONSOLE_ADDRESS || netFn! >> 2 !== NETFN_APP_RESPONSE || rsAddr !== BMC_ADDRESS || command !== GET_CHANNEL_AUTH_CAPABILITIES)
    return null;
  if (headerSum !== checksum([rqAddr, netFn!])) return null;
  if (completion !== 0 || message.length < MIN_RESPONSE_BYTES) {
    return {
      evidence: `a BMC refused Get Channel Authentication Capabilities (completion code 0x${completion!.toString(16)})`,
      details: { ipmi_version: null, auth_types: null, anonymous_login: null },
    };
  }
  const [authSupport, loginStatus, extended] = [message[8]!, message[9]!, message[10]!];
  const ipmiVersion = authSupport & V2_EXTENDED_DATA && extended & SUPPORTS_V2 ? '2.0' : '1.5';
  const authTypes = AUTH_TYPE_NAMES.filter(([bit]) => authSupport & bit).map(([, name]) => name);
  const anonymousLogin = (loginStatus & (NULL_USERNAMES | ANONYMOUS_LOGIN)) !== 0;
  return {
    evidence: `a BMC (IPMI ${ipmiVersion}) listed its login methods${anonymousLogin ? ', null user names or anonymous login allowed' : ''}`,
    details: { ipmi_version: ipmiVersion, auth_types: authTypes.join(',') || null, anonymous_login: anonymousLogin },
  };
}

export const ipmiProbe: UdpProbe = {
  service: 'ipmi',
  port: 623,
  requests: [{ name: 'Get Channel Authentication Capabilities (RMCP, IPMI v1.5)', bytes: getChannelAuthCapabilities() }],
  read: readIpmi,
};
