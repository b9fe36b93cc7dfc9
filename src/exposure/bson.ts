// The little BSON the MongoDB probe needs, to ask `hello`, `listDatabases`
// and `buildInfo` and read the answers, without a driver as a dependency.
// The decoder takes untrusted bytes: every length is checked against the
// buffer and nesting is bounded; what it cannot read throws BsonError.

/** A BSON value as decoded: ObjectId as hex, binary and decimal128 as bytes, int64 and timestamp as bigint. */
export type BsonValue = null | boolean | number | bigint | string | Buffer | Date | BsonValue[] | BsonDocument;

/** A BSON document. */
export interface BsonDocument {
  [key: string]: BsonValue;
}

/** Bytes that are not a BSON document (or one nested too deep). */
export class BsonError extends Error {
  override name = 'BsonError';
}

/** Deepest nesting the decoder follows. */
const MAX_DEPTH = 32;

/** `document` as BSON: integers that fit as int32, other numbers as double, bigint as int64. */
export function encodeBson(document: BsonDocument): Buffer {
  const parts: Buffer[] = [];
  for (const [key, value] of Object.entries(document)) parts.push(encodeElement(key, value));
  const body = Buffer.concat(parts);
  const out = Buffer.alloc(4 + body.length + 1);
  out.writeInt32LE(out.length, 0);
  body.copy(out, 4);
  return out;
}

function encodeElement(key: string, value: BsonValue): Buffer {
  const name = cstring(key);
  const typed = (type: number, payload: Buffer) => Buffer.concat([Buffer.from([type]), name, payload]);
  if (value === null) return typed(0x0a, Buffer.alloc(0));
  if (typeof value === 'boolean') return typed(0x08, Buffer.from([value ? 1 : 0]));
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff) return typed(0x10, int32(value));
    const payload = Buffer.alloc(8);
    payload.writeDoubleLE(value);
    return typed(0x01, payload);
  }
  if (typeof value === 'bigint') {
    const payload = Buffer.alloc(8);
    payload.writeBigInt64LE(value);
    return typed(0x12, payload);
  }
  if (typeof value === 'string') {
    const text = Buffer.from(value, 'utf8');
    return typed(0x02, Buffer.concat([int32(text.length + 1), text, Buffer.from([0])]));
  }
  if (Buffer.isBuffer(value)) return typed(0x05, Buffer.concat([int32(value.length), Buffer.from([0]), value]));
  if (value instanceof Date) {
    const payload = Buffer.alloc(8);
    payload.writeBigInt64LE(BigInt(value.getTime()));
    return typed(0x09, payload);
  }
  if (Array.isArray(value)) return typed(0x04, encodeBson(Object.fromEntries(value.map((item, index) => [String(index), item]))));
  return typed(0x03, encodeBson(value));
}

function cstring(text: string): Buffer {
  if (text.includes('\0')) throw new BsonError('a key holds a NUL');
  return Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);
}

function int32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeInt32LE(value);
  return out;
}

/** The document that is all of `bytes`. Throws BsonError when they are not one. */
export function decodeBson(bytes: Buffer): BsonDocument {
  const length = documentLength(bytes, 0);
  if (length !== bytes.length) throw new BsonError(`document length ${length} in ${bytes.length} bytes`);
  return decodeDocument(bytes, 0, 0) as BsonDocument;
}

/** The declared length of the document at `at`, checked to fit in `bytes`. */
function documentLength(bytes: Buffer, at: number): number {
  if (at + 5 > bytes.length) throw new BsonError('document cut off');
  const length = bytes.readInt32LE(at);
  if (length < 5 || at + length > bytes.length) throw new BsonError(`bad document length ${length}`);
  if (bytes[at + length - 1] !== 0) throw new BsonError('document does not end with NUL');
  return length;
}

function decodeDocument(bytes: Buffer, at: number, depth: number, asArray = false): BsonDocument | BsonValue[] {
  if (depth > MAX_DEPTH) throw new BsonError('nested too deep');
  const end = at + documentLength(bytes, at) - 1;
  const document: BsonDocument = {};
  const array: BsonValue[] = [];
  let i = at + 4;
  while (i < end) {
    const type = bytes[i]!;
    const nameEnd = bytes.indexOf(0, i + 1);
    if (nameEnd < 0 || nameEnd >= end) throw new BsonError('element name cut off');
    const name = bytes.toString('utf8', i + 1, nameEnd);
    const [value, next] = decodeValue(bytes, type, nameEnd + 1, end, depth);
    if (asArray) array.push(value);
    else Object.defineProperty(document, name, { value, enumerable: true, writable: true, configurable: true }); // `__proto__` is data
    i = next;
  }
  if (i !== end) throw new BsonError('element runs past its document');
  return asArray ? array : document;
}

function decodeValue(bytes: Buffer, type: number, at: number, end: number, depth: number): [BsonValue, number] {
  const need = (size: number) => {
    if (size < 0 || at + size > end) throw new BsonError(`value of type ${type} cut off`);
  };
  switch (type) {
    case 0x01:
      need(8);
      return [bytes.readDoubleLE(at), at + 8];
    case 0x02: {
      need(4);
      const length = bytes.readInt32LE(at);
      need(4 + length);
      if (length < 1 || bytes[at + 4 + length - 1] !== 0) throw new BsonError('bad string');
      return [bytes.toString('utf8', at + 4, at + 4 + length - 1), at + 4 + length];
    }
    case 0x03:
    case 0x04: {
      const length = documentLength(bytes, at);
      need(length);
      return [decodeDocument(bytes, at, depth + 1, type === 0x04), at + length];
    }
    case 0x05: {
      need(5);
      const length = bytes.readInt32LE(at);
      need(5 + length);
      return [Buffer.from(bytes.subarray(at + 5, at + 5 + length)), at + 5 + length];
    }
    case 0x07:
      need(12);
      return [bytes.toString('hex', at, at + 12), at + 12];
    case 0x08:
      need(1);
      return [bytes[at] !== 0, at + 1];
    case 0x09:
      need(8);
      return [new Date(Number(bytes.readBigInt64LE(at))), at + 8];
    case 0x0a:
      return [null, at];
    case 0x10:
      need(4);
      return [bytes.readInt32LE(at), at + 4];
    case 0x11:
      need(8);
      return [bytes.readBigUInt64LE(at), at + 8];
    case 0x12:
      need(8);
      return [bytes.readBigInt64LE(at), at + 8];
    case 0x13:
      need(16);
      return [Buffer.from(bytes.subarray(at, at + 16)), at + 16];
    default:
      throw new BsonError(`unsupported element type 0x${type.toString(16)}`);
  }
}
