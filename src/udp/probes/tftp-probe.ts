// TFTP (RFC 1350) on UDP 69: a read request, octet mode, for a file that
// surely does not exist. A server answers with an ERROR (file not found,
// access violation) or, if it serves a file by that name after all, its
// first DATA block; both prove anyone can ask it for files. Never a write
// request. The answer comes from a new port of the server's (the transfer's).

import { printableText } from '../../exposure/printable-text.js';
import type { UdpProbe, UdpReading } from './udp-probe.js';

const MISSING_FILE = 'selfscan-probe-nonexistent';
const OPCODE = { readRequest: 1, data: 3, error: 5 } as const;
/** RFC 1350's codes 0–7 and RFC 2347's 8 (option negotiation refused). */
const ERROR_NAMES = [
  'not defined',
  'file not found',
  'access violation',
  'disk full',
  'illegal operation',
  'unknown transfer id',
  'file exists',
  'no such user',
  'option refused',
];
/** A DATA block holds at most 512 bytes after its 4-byte header (no blksize option asked). */
const MAX_DATA_REPLY = 4 + 512;

/** A read request: opcode, file name, NUL, mode, NUL. */
function readRequest(fileName: string, mode: string): Uint8Array {
  const text = new TextEncoder().encode(`\0\0${fileName}\0${mode}\0`);
  text[1] = OPCODE.readRequest;
  return text;
}

/** The NUL-terminated text from `offset` (to the end if no NUL). */
function cString(reply: Uint8Array, offset: number): string {
  let end = offset;
  while (end < reply.length && reply[end] !== 0) end++;
  return printableText(new TextDecoder('latin1').decode(reply.subarray(offset, end)));
}

function readTftp(_request: number, reply: Uint8Array): UdpReading | null {
  if (reply.length < 4 || reply[0] !== 0) return null;
  const secondWord = (reply[2]! << 8) | reply[3]!;
  if (reply[1] === OPCODE.error) {
    const errorName = ERROR_NAMES[secondWord];
    if (errorName === undefined) return null;
    const message = cString(reply, 4);
    return {
      evidence: `answered a read request for a missing file with error ${secondWord} (${message || errorName})`,
      details: { opcode: 'ERROR', error_code: secondWord, message },
    };
  }
  if (reply[1] === OPCODE.data && secondWord === 1 && reply.length <= MAX_DATA_REPLY) {
    return {
      evidence: `answered a read request with the first ${reply.length - 4} bytes of a file`,
      details: { opcode: 'DATA', error_code: null, message: null },
    };
  }
  return null;
}

export const tftpProbe: UdpProbe = {
  service: 'tftp',
  port: 69,
  answersFromOtherPort: true,
  requests: [{ name: `read request (RRQ, octet) for ${MISSING_FILE}`, bytes: readRequest(MISSING_FILE, 'octet') }],
  read: readTftp,
};
