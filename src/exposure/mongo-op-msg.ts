// MongoDB's wire framing for OP_MSG (opcode 2013), the one message kind a
// server since 3.6 takes: a 16-byte header, flag bits, and a body section
// holding one BSON document. Pure, so the probe and the test responder
// share it and the unit tests pin it.
import { type BsonDocument, BsonError, decodeBson, encodeBson } from './bson.js';

/** The OP_MSG opcode. */
export const OP_MSG = 2013;

const HEADER_BYTES = 16;
const CHECKSUM_PRESENT = 1;

/** One OP_MSG: its ids and the document of its body section. */
export interface OpMsg {
  requestId: number;
  responseTo: number;
  body: BsonDocument;
}

/** `body` as an OP_MSG with a body section only (no checksum). */
export function encodeOpMsg(message: OpMsg): Buffer {
  const document = encodeBson(message.body);
  const out = Buffer.alloc(HEADER_BYTES + 4 + 1 + document.length);
  out.writeInt32LE(out.length, 0);
  out.writeInt32LE(message.requestId, 4);
  out.writeInt32LE(message.responseTo, 8);
  out.writeInt32LE(OP_MSG, 12);
  out.writeUInt32LE(0, 16);
  out[20] = 0; // section kind 0: the body
  document.copy(out, 21);
  return out;
}

/** How many whole messages (of any opcode) `bytes` start with, by their declared lengths. */
export function countMessages(bytes: Buffer): number {
  let count = 0;
  for (let at = 0; at + 4 <= bytes.length; count++) {
    const length = bytes.readInt32LE(at);
    if (length < HEADER_BYTES || at + length > bytes.length) break;
    at += length;
  }
  return count;
}

/** The whole OP_MSGs at the start of `bytes`. Throws BsonError on a message that is not a well-formed OP_MSG. */
export function readOpMsgs(bytes: Buffer): OpMsg[] {
  const messages: OpMsg[] = [];
  for (let at = 0; at + 4 <= bytes.length; ) {
    const length = bytes.readInt32LE(at);
    if (length < HEADER_BYTES || at + length > bytes.length) break;
    messages.push(readOpMsg(bytes.subarray(at, at + length)));
    at += length;
  }
  return messages;
}

function readOpMsg(message: Buffer): OpMsg {
  if (message.length < HEADER_BYTES + 5) throw new BsonError('message too short');
  if (message.readInt32LE(12) !== OP_MSG) throw new BsonError(`opcode ${message.readInt32LE(12)} is not OP_MSG`);
  const flags = message.readUInt32LE(16);
  const end = message.length - (flags & CHECKSUM_PRESENT ? 4 : 0);
  let at = 20;
  while (at < end) {
    const kind = message[at];
    if (kind === 0) {
      const length = at + 5 <= end ? message.readInt32LE(at + 1) : -1;
      if (length < 5 || at + 1 + length > end) throw new BsonError('body section cut off');
      const body = decodeBson(message.subarray(at + 1, at + 1 + length));
      return { requestId: message.readInt32LE(4), responseTo: message.readInt32LE(8), body };
    }
    if (kind !== 1 || at + 5 > end) throw new BsonError(`bad section kind ${kind}`);
    const size = message.readInt32LE(at + 1);
    if (size < 4) throw new BsonError('bad document sequence');
    at += 1 + size; // a document sequence: skipped
  }
  throw new BsonError('no body section');
}
