// The bundled ASN table: the ranges of @ip-location-db/asn, built at pack time
// (scripts/build-asn-table.ts) into one brotli-compressed file the package
// ships in dist/asn/, so an install carries ~1 MiB instead of the 63 MB of
// CSV. A table is a list of boundaries per family: row i covers the addresses
// from its start up to the next row's start, and AS 0 marks a gap, so no
// range needs an end. Answers are those of the range table it was built from.
import { readFile } from 'node:fs/promises';
import { endianness } from 'node:os';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';

import type { AsnLookup } from './asn-lookup.js';
import { type AsnRangeTable, compareRows, lastStartAtOrBelow, lookupAsn, type RangeColumns } from './asn-range-table.js';

/** Where the build writes the table, its licences and credits: dist/asn, from src/ or dist/ alike. */
export const BUNDLED_ASN_DIR = new URL('../../../dist/asn/', import.meta.url);
/** The table's file name in BUNDLED_ASN_DIR. */
export const BUNDLED_ASN_TABLE = 'asn-table.bin.br';

/**
 * One family's boundaries, sorted: an IPv4 start is one Uint32, an IPv6 start
 * four, most significant first. The AS of row i holds up to the next start.
 */
export interface BoundaryColumns {
  readonly starts: Uint32Array;
  readonly asns: Uint32Array;
}

/** An AsnLookup on boundary columns, read from a compact table file. */
export class CompactAsnTable implements AsnLookup {
  constructor(
    readonly source: string,
    readonly ipv4: BoundaryColumns,
    readonly ipv6: BoundaryColumns,
  ) {}

  asnOf(ip: string): number | null {
    return lookupAsn(
      ip,
      (address) => findIpv4(this.ipv4, address),
      (words) => findIpv6(this.ipv6, words),
    );
  }

  /** Rows per family, gaps included. */
  get stats(): { ipv4Rows: number; ipv6Rows: number } {
    return { ipv4Rows: this.ipv4.asns.length, ipv6Rows: this.ipv6.asns.length };
  }
}

function findIpv4({ starts, asns }: BoundaryColumns, address: number): number {
  const found = lastStartAtOrBelow(asns.length, (row) => starts[row]! <= address);
  return found >= 0 ? asns[found]! : 0;
}

function findIpv6({ starts, asns }: BoundaryColumns, address: Uint32Array): number {
  const found = lastStartAtOrBelow(asns.length, (row) => compareRows(starts, row, address, 0, 4) <= 0);
  return found >= 0 ? asns[found]! : 0;
}

// --- from ranges to boundaries -------------------------------------------------

/**
 * The boundaries of range columns (`width` words an address): each range's
 * start, and a row of AS 0 after each range not followed at once by the next.
 * Rows that would repeat the AS of the row before are merged into it.
 */
export function toBoundaries(columns: RangeColumns, width: number): BoundaryColumns {
  const { starts, ends, asns } = columns;
  const outStarts: number[] = [];
  const outAsns: number[] = [];
  const next = new Uint32Array(width);
  let nextValid = false; // `next`: the address after the previous range, unless that ended at the top
  const push = (words: ArrayLike<number>, offset: number, asn: number): void => {
    if (outAsns.length > 0 && outAsns.at(-1) === asn) return;
    for (let k = 0; k < width; k++) outStarts.push(words[offset + k]!);
    outAsns.push(asn);
  };
  for (let row = 0; row < asns.length; row++) {
    const at = row * width;
    if (nextValid && !sameWords(next, 0, starts, at, width)) push(next, 0, 0);
    push(starts, at, asns[row]!);
    // next = end + 1, carried from the least significant word.
    let carry = 1;
    for (let k = width - 1; k >= 0; k--) {
      const sum = ends[at + k]! + carry;
      next[k] = sum >>> 0;
      carry = sum > 0xffffffff ? 1 : 0;
    }
    nextValid = carry === 0;
  }
  if (nextValid && asns.length > 0) push(next, 0, 0);
  return { starts: Uint32Array.from(outStarts), asns: Uint32Array.from(outAsns) };
}

function sameWords(a: ArrayLike<number>, at: number, b: ArrayLike<number>, bt: number, width: number): boolean {
  for (let k = 0; k < width; k++) if (a[at + k] !== b[bt + k]) return false;
  return true;
}

// --- the file --------------------------------------------------------------------
//
// brotli( magic 'SSASNCT1' | Uint32 LE: sourceBytes, ipv4Rows, ipv6Rows, 0 |
//         source, UTF-8, zero-padded to 4 bytes |
//         IPv4 start deltas (Uint32 each) | IPv4 ASNs |
//         IPv6 start deltas (four Uint32 words each, most significant first) | IPv6 ASNs )
// Each start is stored as its difference from the row before (the first as
// itself), so the words are mostly small and compress well; all little-endian.

const MAGIC = Buffer.from('SSASNCT1', 'latin1');
const HEADER_BYTES = MAGIC.length + 16;
const padTo4 = (bytes: number): number => Math.ceil(bytes / 4) * 4;
const bigEndianHost = endianness() === 'BE';

/** Replaces each row of IPv4 starts by its difference from the row before (the first stays). */
function toDeltas4(words: Uint32Array): void {
  for (let row = words.length - 1; row > 0; row--) words[row] = (words[row]! - words[row - 1]!) >>> 0;
}

/** Undoes toDeltas4. */
function fromDeltas4(words: Uint32Array): void {
  for (let row = 1; row < words.length; row++) words[row] = (words[row]! + words[row - 1]!) >>> 0;
}

/** Replaces each four-word row of IPv6 starts by its 128-bit difference from the row before. */
function toDeltas6(words: Uint32Array): void {
  for (let at = words.length - 4; at > 0; at -= 4) {
    let borrow = 0;
    for (let k = 3; k >= 0; k--) {
      const difference = words[at + k]! - words[at - 4 + k]! - borrow;
      words[at + k] = difference >>> 0;
      borrow = difference < 0 ? 1 : 0;
    }
  }
}

/** Undoes toDeltas6: a running 128-bit sum, in four locals. */
function fromDeltas6(words: Uint32Array): void {
  let w0 = 0;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  for (let at = 0; at < words.length; at += 4) {
    const s3 = w3 + words[at + 3]!;
    const s2 = w2 + words[at + 2]! + (s3 > 0xffffffff ? 1 : 0);
    const s1 = w1 + words[at + 1]! + (s2 > 0xffffffff ? 1 : 0);
    w3 = s3 >>> 0;
    w2 = s2 >>> 0;
    w1 = s1 >>> 0;
    w0 = (w0 + words[at]! + (s1 > 0xffffffff ? 1 : 0)) >>> 0;
    words[at] = w0;
    words[at + 1] = w1;
    words[at + 2] = w2;
    words[at + 3] = w3;
  }
}

/** The compact file of `table`: its ranges as boundaries, brotli-compressed, `source` in its header. */
export function encodeCompactTable(table: AsnRangeTable, source: string): Buffer {
  const ipv4 = toBoundaries(table.ipv4, 1);
  const ipv6 = toBoundaries(table.ipv6, 4);
  const id = Buffer.from(source, 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32LE(id.length, 8);
  header.writeUInt32LE(ipv4.asns.length, 12);
  header.writeUInt32LE(ipv6.asns.length, 16);
  const v4Starts = ipv4.starts.slice();
  const v6Starts = ipv6.starts.slice();
  toDeltas4(v4Starts);
  toDeltas6(v6Starts);
  const words = [v4Starts, ipv4.asns.slice(), v6Starts, ipv6.asns.slice()].map((column) => {
    const bytes = Buffer.from(column.buffer, column.byteOffset, column.byteLength);
    return bigEndianHost ? Buffer.from(bytes).swap32() : bytes;
  });
  const body = Buffer.concat([header, id, Buffer.alloc(padTo4(id.length) - id.length), ...words]);
  return brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 11,
      [constants.BROTLI_PARAM_LGWIN]: 24,
      [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
    },
  });
}

/** The table in the compact bytes `file` (as encodeCompactTable wrote them); throws when they are not one. */
export function decodeCompactTable(file: Uint8Array): CompactAsnTable {
  const body = brotliDecompressSync(file);
  if (body.length < HEADER_BYTES || !body.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not a selfscan ASN table');
  const idLength = body.readUInt32LE(8);
  const v4 = body.readUInt32LE(12);
  const v6 = body.readUInt32LE(16);
  const first = HEADER_BYTES + padTo4(idLength);
  if (body.length !== first + v4 * 8 + v6 * 20) throw new Error('a selfscan ASN table of the wrong length');
  const source = body.toString('utf8', HEADER_BYTES, HEADER_BYTES + idLength);
  // Typed arrays need aligned offsets; a fresh copy is aligned.
  const bytes = body.byteOffset % 4 === 0 ? body : Buffer.from(body);
  if (bigEndianHost) bytes.subarray(first).swap32();
  let offset = bytes.byteOffset + first;
  const take = (words: number): Uint32Array => {
    const view = new Uint32Array(bytes.buffer, offset, words);
    offset += words * 4;
    return view;
  };
  const ipv4 = { starts: take(v4), asns: take(v4) };
  const ipv6 = { starts: take(v6 * 4), asns: take(v6) };
  fromDeltas4(ipv4.starts);
  fromDeltas6(ipv6.starts);
  return new CompactAsnTable(source, ipv4, ipv6);
}

/** Reads the compact table at `path`. */
export async function openCompactTable(path: string | URL): Promise<CompactAsnTable> {
  return decodeCompactTable(await readFile(path));
}
