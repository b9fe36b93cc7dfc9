// DNS messages as the DNS, mDNS and NetBIOS probes write and read them
// (RFC 1035 §4; NetBIOS name service keeps the layout): a query of one
// question, and a reader of a whole reply that follows compression pointers
// and returns null, never throws, on anything truncated or malformed.

/** The header flags a probe reads (RFC 1035 §4.1.1). */
export const DNS_FLAG = { response: 0x8000, recursionDesired: 0x0100, recursionAvailable: 0x0080 } as const;

export const DNS_TYPE = { a: 1, ptr: 12, txt: 16 } as const;
export const DNS_CLASS = { in: 1, chaos: 3 } as const;

const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/** The name of a reply code, e.g. `REFUSED`, or `RCODE9` for one past the common six. */
export function rcodeName(rcode: number): string {
  return RCODE_NAMES[rcode] ?? `RCODE${rcode}`;
}

export interface DnsQuestion {
  name: string;
  type: number;
  class: number;
}

export interface DnsRecord extends DnsQuestion {
  ttl: number;
  /** Offset of the record's data in the message (names in it may point back into the message). */
  dataOffset: number;
  data: Uint8Array;
}

export interface DnsMessage {
  id: number;
  flags: number;
  questions: DnsQuestion[];
  answers: DnsRecord[];
  authorities: DnsRecord[];
  additionals: DnsRecord[];
}

/** A name as labels, e.g. `example.com` → `\x07example\x03com\x00`; labels are ASCII of at most 63 bytes. */
export function encodeDnsName(name: string): Uint8Array {
  const bytes: number[] = [];
  for (const label of name.split('.').filter((part) => part.length > 0)) {
    bytes.push(label.length, ...Array.from(label, (char) => char.charCodeAt(0)));
  }
  bytes.push(0);
  return Uint8Array.from(bytes);
}

/** A query of one question: id, flags, the question; no other records. */
export function dnsQuery(id: number, flags: number, question: DnsQuestion): Uint8Array {
  const name = encodeDnsName(question.name);
  const out = new Uint8Array(12 + name.length + 4);
  const view = new DataView(out.buffer);
  view.setUint16(0, id);
  view.setUint16(2, flags);
  view.setUint16(4, 1);
  out.set(name, 12);
  view.setUint16(12 + name.length, question.type);
  view.setUint16(14 + name.length, question.class);
  return out;
}

function uint16(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! << 8) | bytes[offset + 1]!;
}

/** Enough pointer hops for any real name; more is a loop. */
const MAX_POINTER_HOPS = 32;

/** The name at `offset` (labels joined by dots, the root as ''), and where it ends; null if malformed. */
export function readDnsName(bytes: Uint8Array, offset: number): { name: string; end: number } | null {
  const labels: string[] = [];
  let end = -1;
  let at = offset;
  for (let hops = 0; ; ) {
    if (at >= bytes.length) return null;
    const length = bytes[at]!;
    if (length === 0) {
      if (end < 0) end = at + 1;
      break;
    }
    if ((length & 0xc0) === 0xc0) {
      if (at + 2 > bytes.length || ++hops > MAX_POINTER_HOPS) return null;
      if (end < 0) end = at + 2;
      at = uint16(bytes, at) & 0x3fff;
      continue;
    }
    if (length & 0xc0 || at + 1 + length > bytes.length) return null;
    labels.push(String.fromCharCode(...bytes.subarray(at + 1, at + 1 + length)));
    at += 1 + length;
  }
  return { name: labels.join('.'), end };
}

function readQuestion(bytes: Uint8Array, offset: number): { question: DnsQuestion; end: number } | null {
  const name = readDnsName(bytes, offset);
  if (name === null || name.end + 4 > bytes.length) return null;
  return { question: { name: name.name, type: uint16(bytes, name.end), class: uint16(bytes, name.end + 2) }, end: name.end + 4 };
}

function readRecord(bytes: Uint8Array, offset: number): { record: DnsRecord; end: number } | null {
  const head = readQuestion(bytes, offset);
  if (head === null || head.end + 6 > bytes.length) return null;
  const ttl = ((bytes[head.end]! << 24) | (bytes[head.end + 1]! << 16) | uint16(bytes, head.end + 2)) >>> 0;
  const dataOffset = head.end + 6;
  const end = dataOffset + uint16(bytes, head.end + 4);
  if (end > bytes.length) return null;
  return { record: { ...head.question, ttl, dataOffset, data: bytes.subarray(dataOffset, end) }, end };
}

/** The whole message, every section read; null if any part is truncated or malformed. */
export function readDnsMessage(bytes: Uint8Array): DnsMessage | null {
  if (bytes.length < 12) return null;
  const counts = [uint16(bytes, 4), uint16(bytes, 6), uint16(bytes, 8), uint16(bytes, 10)] as const;
  let offset = 12;
  const questions: DnsQuestion[] = [];
  for (let i = 0; i < counts[0]; i++) {
    const read = readQuestion(bytes, offset);
    if (read === null) return null;
    questions.push(read.question);
    offset = read.end;
  }
  const sections: DnsRecord[][] = [[], [], []];
  for (let section = 0; section < 3; section++) {
    for (let i = 0; i < counts[section + 1]!; i++) {
      const read = readRecord(bytes, offset);
      if (read === null) return null;
      sections[section]!.push(read.record);
      offset = read.end;
    }
  }
  return { id: uint16(bytes, 0), flags: uint16(bytes, 2), questions, answers: sections[0]!, authorities: sections[1]!, additionals: sections[2]! };
}

/** Whether `question` is the one asked: same name (any case), type and class. */
export function isSameQuestion(question: DnsQuestion | undefined, asked: DnsQuestion): boolean {
  return question !== undefined && question.name.toLowerCase() === asked.name.toLowerCase() && question.type === asked.type && question.class === asked.class;
}

/** The strings of a TXT record's data, or null if a length runs past it. */
export function readTxtStrings(data: Uint8Array): string[] | null {
  const strings: string[] = [];
  for (let at = 0; at < data.length; ) {
    const end = at + 1 + data[at]!;
    if (end > data.length) return null;
    strings.push(String.fromCharCode(...data.subarray(at + 1, end)));
    at = end;
  }
  return strings;
}
