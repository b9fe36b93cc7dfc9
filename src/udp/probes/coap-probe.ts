// CoAP (RFC 7252) on UDP 5683: a confirmable GET of /.well-known/core
// (RFC 6690), the resource directory every server keeps. The answer is the
// link-format list of its resources (`</sensors/temp>;rt="...",...`),
// piggybacked on the ACK of our message id or sent apart with our token.

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const VERSION = 1;
const TYPE = { confirmable: 0, acknowledgement: 2, reset: 3 } as const;
const CODE_GET = 0x01;
const MESSAGE_ID = 0x5c4a;
const TOKEN = Uint8Array.of(0x73, 0x65, 0x6c, 0x66);
const OPTION_URI_PATH = 11;
const PAYLOAD_MARKER = 0xff;
/** Response codes are 2.xx success, 4.xx client and 5.xx server errors; 0.xx are requests (or an empty ACK). */
const RESPONSE_CLASSES = new Set([2, 4, 5]);
/** How many resource paths the details name. */
const PATHS_SHOWN = 5;

/** Header (version, type, token length; code; message id), token, the Uri-Path options, no payload. */
function getWellKnownCore(): Uint8Array {
  const wellKnown = new TextEncoder().encode('.well-known');
  const core = new TextEncoder().encode('core');
  return Uint8Array.of(
    (VERSION << 6) | (TYPE.confirmable << 4) | TOKEN.length,
    CODE_GET,
    MESSAGE_ID >> 8,
    MESSAGE_ID & 0xff,
    ...TOKEN,
    (OPTION_URI_PATH << 4) | wellKnown.length,
    ...wellKnown,
    core.length,
    ...core,
  );
}

/** An option's delta or length from its nibble and the extension bytes at `at`, or null for the reserved 15 or an overrun. */
function extendedValue(nibble: number, reply: Uint8Array, at: number): { value: number; bytes: number } | null {
  if (nibble < 13) return { value: nibble, bytes: 0 };
  if (nibble === 13) return at < reply.length ? { value: reply[at]! + 13, bytes: 1 } : null;
  if (nibble === 14) return at + 1 < reply.length ? { value: ((reply[at]! << 8) | reply[at + 1]!) + 269, bytes: 2 } : null;
  return null;
}

/** Where the payload starts after the options from `offset` (reply.length when none), or null when they are malformed. */
function payloadStart(reply: Uint8Array, offset: number): number | null {
  let at = offset;
  while (at < reply.length) {
    const first = reply[at]!;
    if (first === PAYLOAD_MARKER) return at + 1 < reply.length ? at + 1 : null;
    const delta = extendedValue(first >> 4, reply, at + 1);
    if (delta === null) return null;
    const length = extendedValue(first & 0x0f, reply, at + 1 + delta.bytes);
    if (length === null) return null;
    at += 1 + delta.bytes + length.bytes + length.value;
  }
  return at === reply.length ? at : null;
}

/** Whether the token at 4 is ours. */
function hasOurToken(reply: Uint8Array, tokenLength: number): boolean {
  return tokenLength === TOKEN.length && TOKEN.every((byte, i) => reply[4 + i] === byte);
}

function readCoap(_request: number, reply: Uint8Array): UdpReading | null {
  if (reply.length < 4 || reply[0]! >> 6 !== VERSION) return null;
  const type = (reply[0]! >> 4) & 0x03;
  const tokenLength = reply[0]! & 0x0f;
  const code = reply[1]!;
  const messageId = (reply[2]! << 8) | reply[3]!;
  if (type === TYPE.reset) {
    return messageId === MESSAGE_ID && code === 0 ? { evidence: 'reset our request', details: { code: '0.00', resources: null, paths: null } } : null;
  }
  if (!RESPONSE_CLASSES.has(code >> 5) || 4 + tokenLength > reply.length || !hasOurToken(reply, tokenLength)) return null;
  if (type === TYPE.acknowledgement && messageId !== MESSAGE_ID) return null;
  const start = payloadStart(reply, 4 + tokenLength);
  if (start === null) return null;
  const codeText = `${code >> 5}.${String(code & 0x1f).padStart(2, '0')}`;
  const links = new TextDecoder('latin1').decode(reply.subarray(start));
  const paths = [...links.matchAll(/<([^>]*)>/g)].map((match) => match[1]!);
  return {
    evidence: `answered GET /.well-known/core with ${codeText}${paths.length > 0 ? `, listing ${paths.length} resources` : ''}`,
    details: {
      code: codeText,
      resources: paths.length,
      paths: paths.length > 0 ? printableText(paths.slice(0, PATHS_SHOWN).join(' ')) : null,
    },
  };
}

export const coapProbe: UdpProbe = {
  service: 'coap',
  port: 5683,
  requests: [{ name: 'GET /.well-known/core (confirmable)', bytes: getWellKnownCore() }],
  read: readCoap,
};
