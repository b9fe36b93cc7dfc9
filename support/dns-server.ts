// A minimal authoritative DNS server over UDP on loopback that answers PTR
// queries from a fixed map, for tests of reverse lookups.
import dgram from 'node:dgram';

import ipaddr from 'ipaddr.js';

const TYPE_PTR = 12;
const CLASS_IN = 1;
const RCODE_NXDOMAIN = 3;

/** A running test DNS server. */
export interface DnsServer {
  /** `127.0.0.1:PORT`, usable as a `Resolver#setServers` entry. */
  address: string;
  /** Datagrams received so far, answered or not. */
  readonly queries: number;
  close(): Promise<void>;
}

/** The reverse name of an address: `4.3.2.1.in-addr.arpa` or 32 nibbles + `ip6.arpa`. */
export function reverseName(ip: string): string {
  const bytes = ipaddr.parse(ip).toByteArray();
  if (bytes.length === 4) return `${bytes.reverse().join('.')}.in-addr.arpa`;
  const nibbles = bytes.flatMap((b) => [b >> 4, b & 0xf]).map((n) => n.toString(16));
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

/**
 * Starts a server on 127.0.0.1 (port chosen by the OS) that answers PTR
 * queries for the reverse names of `records` (ip -> PTR name) and NXDOMAIN
 * for unknown names; with `silent` it counts queries but never answers.
 */
export async function startDnsServer(records: Record<string, string>, options: { silent?: boolean } = {}): Promise<DnsServer> {
  const names = new Map(Object.entries(records).map(([ip, name]) => [reverseName(ip), name]));
  const socket = dgram.createSocket('udp4');
  let queries = 0;

  socket.on('message', (query, peer) => {
    queries++;
    if (options.silent) return;
    const response = answer(query, names);
    if (response) socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });

  return {
    address: `127.0.0.1:${socket.address().port}`,
    get queries() {
      return queries;
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** The response to one query, or undefined to drop a malformed one. */
function answer(query: Buffer, names: Map<string, string>): Buffer | undefined {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return undefined;
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const length = query[offset];
    // Compression pointers (0xc0) never appear in a question at offset 12.
    if (length === undefined || length > 63) return undefined;
    offset++;
    if (length === 0) break;
    labels.push(query.toString('latin1', offset, offset + length).toLowerCase());
    offset += length;
  }
  if (offset + 4 > query.length) return undefined;
  const qtype = query.readUInt16BE(offset);
  const qclass = query.readUInt16BE(offset + 2);
  const question = query.subarray(12, offset + 4);

  const known = names.get(labels.join('.'));
  // A known name asked for another type gets an empty NOERROR answer.
  const target = qtype === TYPE_PTR && qclass === CLASS_IN ? known : undefined;
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0); // id
  // QR and AA set, opcode and RD copied from the query, RA off.
  const flags = 0x8400 | (query.readUInt16BE(2) & 0x7900);
  header.writeUInt16BE(flags | (known === undefined ? RCODE_NXDOMAIN : 0), 2);
  header.writeUInt16BE(1, 4); // QDCOUNT
  header.writeUInt16BE(target === undefined ? 0 : 1, 6); // ANCOUNT
  if (target === undefined) return Buffer.concat([header, question]);

  const rdata = encodeName(target);
  const record = Buffer.alloc(12);
  record.writeUInt16BE(0xc00c, 0); // name: pointer to the question's name
  record.writeUInt16BE(TYPE_PTR, 2);
  record.writeUInt16BE(CLASS_IN, 4);
  record.writeUInt32BE(60, 6); // TTL
  record.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([header, question, record, rdata]);
}

function encodeName(name: string): Buffer {
  const parts = name
    .replace(/\.$/, '')
    .split('.')
    .map((label) => {
      const bytes = Buffer.from(label, 'latin1');
      return Buffer.concat([Buffer.of(bytes.length), bytes]);
    });
  return Buffer.concat([...parts, Buffer.of(0)]);
}
