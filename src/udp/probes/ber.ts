// A tiny BER (ASN.1 Basic Encoding Rules) writer and reader, enough for the
// probes that speak it (SNMP, CLDAP): definite lengths only, tags of one
// byte. The reader never throws: any truncated or malformed element is null.

/** Universal tags. */
export const BER_TAG = {
  boolean: 0x01,
  integer: 0x02,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  enumerated: 0x0a,
  sequence: 0x30,
  set: 0x31,
} as const;

/** One element read: its tag byte and content. */
export interface BerElement {
  tag: number;
  content: Uint8Array;
  /** Offset just past the element in the buffer it was read from. */
  end: number;
}

function encodeLength(length: number): number[] {
  if (length < 0x80) return [length];
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return [0x80 | bytes.length, ...bytes];
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** An element of tag `tag` (one byte: class, constructed bit and number) around `content`. */
export function berTlv(tag: number, ...content: readonly Uint8Array[]): Uint8Array {
  const body = concat(content);
  return concat([Uint8Array.from([tag, ...encodeLength(body.length)]), body]);
}

/** INTEGER (or, with `tag`, ENUMERATED) of a safe integer, in the fewest two's-complement bytes. */
export function berInteger(value: number, tag: number = BER_TAG.integer): Uint8Array {
  const bytes: number[] = [];
  let rest = BigInt(value);
  do {
    bytes.unshift(Number(rest & 0xffn));
    rest >>= 8n;
  } while (!(rest === 0n && (bytes[0]! & 0x80) === 0) && !(rest === -1n && (bytes[0]! & 0x80) !== 0));
  return berTlv(tag, Uint8Array.from(bytes));
}

export function berOctetString(value: string | Uint8Array): Uint8Array {
  return berTlv(BER_TAG.octetString, typeof value === 'string' ? new TextEncoder().encode(value) : value);
}

export function berBoolean(value: boolean): Uint8Array {
  return berTlv(BER_TAG.boolean, Uint8Array.of(value ? 0xff : 0));
}

export function berNull(): Uint8Array {
  return Uint8Array.of(BER_TAG.null, 0);
}

/** OBJECT IDENTIFIER of dotted text, e.g. `1.3.6.1.2.1.1.1.0`. */
export function berOid(dotted: string): Uint8Array {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [];
  const first = [(arcs[0] ?? 0) * 40 + (arcs[1] ?? 0), ...arcs.slice(2)];
  for (const arc of first) {
    const base128 = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) base128.unshift(0x80 | (rest & 0x7f));
    bytes.push(...base128);
  }
  return berTlv(BER_TAG.oid, Uint8Array.from(bytes));
}

export function berSequence(...children: readonly Uint8Array[]): Uint8Array {
  return berTlv(BER_TAG.sequence, ...children);
}

/** A context-specific tag `[number]` (0–30), constructed unless `primitive`. */
export function berContext(number: number, children: readonly Uint8Array[], primitive = false): Uint8Array {
  return berTlv(0x80 | (primitive ? 0 : 0x20) | number, ...children);
}

/** An application tag `[APPLICATION number]` (0–30), constructed unless `primitive`. */
export function berApplication(number: number, children: readonly Uint8Array[], primitive = false): Uint8Array {
  return berTlv(0x40 | (primitive ? 0 : 0x20) | number, ...children);
}

/** The element at `offset` of `bytes`, or null if it is truncated, multi-byte-tagged or of indefinite length. */
export function readBer(bytes: Uint8Array, offset = 0): BerElement | null {
  if (offset + 2 > bytes.length) return null;
  const tag = bytes[offset]!;
  if ((tag & 0x1f) === 0x1f) return null;
  let length = bytes[offset + 1]!;
  let start = offset + 2;
  if (length & 0x80) {
    const lengthBytes = length & 0x7f;
    if (lengthBytes === 0 || lengthBytes > 4 || start + lengthBytes > bytes.length) return null;
    length = 0;
    for (let i = 0; i < lengthBytes; i++) length = length * 256 + bytes[start + i]!;
    start += lengthBytes;
  }
  const end = start + length;
  if (end > bytes.length) return null;
  return { tag, content: bytes.subarray(start, end), end };
}

/** The elements that fill `content` exactly (a SEQUENCE's children), or null if any is malformed. */
export function readBerChildren(content: Uint8Array): BerElement[] | null {
  const children: BerElement[] = [];
  for (let offset = 0; offset < content.length; ) {
    const child = readBer(content, offset);
    if (child === null) return null;
    children.push(child);
    offset = child.end;
  }
  return children;
}

/** The value of an INTEGER's (or ENUMERATED's) content, or null if empty or beyond a safe integer. */
export function berIntegerValue(content: Uint8Array): number | null {
  if (content.length === 0 || content.length > 6) return null;
  let value = content[0]! & 0x80 ? -1 : 0;
  for (const byte of content) value = value * 256 + byte;
  return value;
}

/** The dotted text of an OBJECT IDENTIFIER's content, or null if malformed. */
export function berOidText(content: Uint8Array): string | null {
  const arcs: number[] = [];
  let arc = 0;
  for (let i = 0; i < content.length; i++) {
    arc = arc * 128 + (content[i]! & 0x7f);
    if (arc > Number.MAX_SAFE_INTEGER / 128) return null;
    if ((content[i]! & 0x80) === 0) {
      arcs.push(arc);
      arc = 0;
    } else if (i === content.length - 1) return null;
  }
  if (arcs.length === 0) return null;
  const first = arcs[0]!;
  const head = first < 80 ? [Math.floor(first / 40), first % 40] : [2, first - 80];
  return [...head, ...arcs.slice(1)].join('.');
}
