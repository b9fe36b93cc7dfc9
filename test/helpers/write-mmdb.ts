// Writes a small MaxMind DB file (format 2.0): an IPv6 search tree with 24-bit
// records, a data section and the metadata. No npm package writes .mmdb files,
// so tests of the mmdb lookup make their own with this.
import { writeFileSync } from 'node:fs';

import ipaddr from 'ipaddr.js';

/** What a data record may hold: strings, unsigned 32-bit numbers, arrays and maps. */
export type MmdbValue = string | number | readonly MmdbValue[] | { readonly [key: string]: MmdbValue };

/** One network (`198.51.100.0/24`, `2001:db8::/32`) and its record. Networks must not overlap. */
export interface MmdbNetwork {
  readonly cidr: string;
  readonly data: { readonly [key: string]: MmdbValue };
}

// Data section types (MaxMind DB spec, "Output Data Section").
const STRING = 2;
const UINT16 = 5;
const UINT32 = 6;
const MAP = 7;
const UINT64 = 9;
const ARRAY = 11;

/** A control byte (plus extended type byte and size bytes) for `size` items of `type`. */
function control(type: number, size: number): Buffer {
  const extended = type > 7 ? [type - 7] : [];
  const first = type > 7 ? 0 : type << 5;
  if (size < 29) return Buffer.from([first | size, ...extended]);
  if (size < 285) return Buffer.from([first | 29, ...extended, size - 29]);
  if (size < 65821) return Buffer.from([first | 30, ...extended, (size - 285) >> 8, (size - 285) & 0xff]);
  const rest = size - 65821;
  return Buffer.from([first | 31, ...extended, rest >> 16, (rest >> 8) & 0xff, rest & 0xff]);
}

function encodeUint(type: number, value: number | bigint): Buffer {
  const bytes: number[] = [];
  for (let rest = BigInt(value); rest > 0n; rest >>= 8n) bytes.unshift(Number(rest & 0xffn));
  return Buffer.concat([control(type, bytes.length), Buffer.from(bytes)]);
}

function encode(value: MmdbValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([control(STRING, bytes.length), bytes]);
  }
  if (typeof value === 'number') return encodeUint(UINT32, value);
  if (Array.isArray(value)) return Buffer.concat([control(ARRAY, value.length), ...value.map(encode)]);
  return encodeMap(Object.entries(value).map(([key, item]) => [key, encode(item)]));
}

function encodeMap(entries: readonly (readonly [string, Buffer])[]): Buffer {
  return Buffer.concat([control(MAP, entries.length), ...entries.flatMap(([key, item]) => [encode(key), item])]);
}

/** The 128 bits of `cidr` (IPv4 at ::a.b.c.d, as MaxMind's IPv6 trees hold it) and its prefix length. */
function networkBits(cidr: string): { bytes: number[]; prefix: number } {
  const [address, prefix] = ipaddr.parseCIDR(cidr);
  return address.kind() === 'ipv4'
    ? { bytes: [...new Array<number>(12).fill(0), ...address.toByteArray()], prefix: prefix + 96 }
    : { bytes: address.toByteArray(), prefix };
}

type TreeRecord = { node: number } | { data: number } | null;

/** Writes `networks` as a MaxMind DB at `path`. */
export function writeMmdb(path: string, networks: readonly MmdbNetwork[], databaseType = 'selfscan-test-ASN'): void {
  const nodes: [TreeRecord, TreeRecord][] = [[null, null]];
  const records: Buffer[] = [];
  let dataBytes = 0;
  for (const { cidr, data } of networks) {
    const { bytes, prefix } = networkBits(cidr);
    const record = encode(data);
    const bitAt = (depth: number): 0 | 1 => ((bytes[depth >> 3]! >> (7 - (depth & 7))) & 1) as 0 | 1;
    let node = 0;
    for (let depth = 0; depth < prefix - 1; depth++) {
      const next = nodes[node]![bitAt(depth)];
      if (next !== null && 'data' in next) throw new Error(`${cidr} overlaps another network`);
      if (next === null) {
        nodes.push([null, null]);
        nodes[node]![bitAt(depth)] = { node: nodes.length - 1 };
        node = nodes.length - 1;
      } else {
        node = next.node;
      }
    }
    if (nodes[node]![bitAt(prefix - 1)] !== null) throw new Error(`${cidr} overlaps another network`);
    nodes[node]![bitAt(prefix - 1)] = { data: dataBytes };
    records.push(record);
    dataBytes += record.length;
  }

  // A record is a node number, node_count for "no data", or node_count + 16 +
  // an offset into the data section (the 16 skips the separator).
  const nodeCount = nodes.length;
  const tree = Buffer.alloc(nodeCount * 6);
  const recordValue = (record: TreeRecord): number => (record === null ? nodeCount : 'node' in record ? record.node : nodeCount + 16 + record.data);
  nodes.forEach(([left, right], index) => {
    tree.writeUIntBE(recordValue(left), index * 6, 3);
    tree.writeUIntBE(recordValue(right), index * 6 + 3, 3);
  });

  const metadata = encodeMap([
    ['node_count', encodeUint(UINT32, nodeCount)],
    ['record_size', encodeUint(UINT16, 24)],
    ['ip_version', encodeUint(UINT16, 6)],
    ['database_type', encode(databaseType)],
    ['languages', encode(['en'])],
    ['binary_format_major_version', encodeUint(UINT16, 2)],
    ['binary_format_minor_version', encodeUint(UINT16, 0)],
    ['build_epoch', encodeUint(UINT64, BigInt(Math.floor(Date.now() / 1000)))],
    ['description', encode({ en: 'written by test/helpers/write-mmdb.ts' })],
  ]);
  const metadataMarker = Buffer.concat([Buffer.from([0xab, 0xcd, 0xef]), Buffer.from('MaxMind.com', 'latin1')]);
  writeFileSync(path, Buffer.concat([tree, Buffer.alloc(16), ...records, metadataMarker, metadata]));
}
