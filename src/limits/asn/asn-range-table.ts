// An ASN lookup over a sorted table of address ranges in typed arrays, found
// by binary search. Built once from CSV in the ip-location-db format
// (`start_ip,end_ip,asn,org`, inclusive ranges) and cached as a binary file, so
// later starts read one file and wrap its bytes instead of parsing the CSV
// again: an operator's own CSV (asnDatabase), and at pack time the bundled
// data, which asn-compact-table.ts turns into the table the package ships.
import { randomBytes } from 'node:crypto';
import { closeSync, createReadStream, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';

import type { AsnLookup } from './asn-lookup.js';

/**
 * One address family's ranges, inclusive, sorted by start and disjoint. An
 * IPv4 address is one Uint32; an IPv6 address is four, most significant
 * first, so IPv6 row `i` starts at `starts[4 * i]` to `starts[4 * i + 3]`.
 */
export interface RangeColumns {
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  readonly asns: Uint32Array;
}

/** What a table holds and what its build left out. */
export interface RangeTableStats {
  readonly ipv4Ranges: number;
  readonly ipv6Ranges: number;
  /** CSV lines that were not `start,end,asn[,…]` with two addresses of one family, start ≤ end. */
  readonly malformedLines: number;
  /** Ranges that overlapped an earlier one: cut to the part beyond it, or dropped when inside it. */
  readonly overlappingRanges: number;
}

/** Where a table comes from and where its cache lives. */
export interface RangeTableSource {
  /** CSV files in the ip-location-db format; IPv4 and IPv6 rows may be mixed. */
  readonly csvFiles: readonly string[];
  /** Changes whenever the data may have: a package version, or the files' sizes and mtimes. */
  readonly identity: string;
  /** The lookup's `source`, for logs. */
  readonly source: string;
  /** The binary cache file; rebuilt when missing, damaged or of another identity. */
  readonly cacheFile: string;
}

/** An AsnLookup on range columns, from a CSV build or a cache file. */
export class AsnRangeTable implements AsnLookup {
  /**
   * @param loadedFrom `csv` when this process parsed the source, `cache` when
   *   it only read the cache file.
   */
  constructor(
    readonly source: string,
    readonly ipv4: RangeColumns,
    readonly ipv6: RangeColumns,
    private readonly skipped: { readonly malformedLines: number; readonly overlappingRanges: number },
    readonly loadedFrom: 'csv' | 'cache',
  ) {}

  asnOf(ip: string): number | null {
    return lookupAsn(
      ip,
      (address) => findIpv4(this.ipv4, address),
      (words) => findIpv6(this.ipv6, words),
    );
  }

  /** Range counts and what the build skipped. */
  get stats(): RangeTableStats {
    return { ipv4Ranges: this.ipv4.asns.length, ipv6Ranges: this.ipv6.asns.length, ...this.skipped };
  }
}

/**
 * The table of `from`: read from its cache file when that matches
 * `from.identity`, else built from the CSV files and cached (atomically, so a
 * concurrent start never reads half a file).
 */
export async function openRangeTable(from: RangeTableSource): Promise<AsnRangeTable> {
  const cached = await readCache(from.cacheFile, from.identity, from.source);
  if (cached !== null) return cached;
  const table = await buildRangeTable(from.csvFiles, from.source);
  writeCache(from.cacheFile, from.identity, table);
  return table;
}

// --- addresses ---------------------------------------------------------------

const lookupScratch = new Uint32Array(4);

/**
 * The AS of `ip` found by a table's per-family search (an IPv4 address as a
 * number, an IPv6 one as four 32-bit words); null when `ip` does not parse,
 * or the AS is 0: a gap, or "no AS" (RFC 7607), which read alike.
 */
export function lookupAsn(ip: string, findV4: (address: number) => number, findV6: (words: Uint32Array) => number): number | null {
  let asn: number;
  if (ip.includes(':')) {
    if (!parseIpv6(ip, lookupScratch)) return null;
    asn = findV6(lookupScratch);
  } else {
    const address = parseIpv4(ip);
    if (address < 0) return null;
    asn = findV4(address);
  }
  return asn === 0 ? null : asn;
}
const ipv6Groups = new Uint16Array(8);

/**
 * A dotted-quad IPv4 address as an unsigned 32-bit number, or -1. Exported
 * for the test that holds it and parseIpv6 to the rules of net/ip-address.
 */
export function parseIpv4(text: string): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2e) {
      if (digits === 0 || ++dots > 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else if (c >= 0x30 && c <= 0x39) {
      if (digits > 0 && part === 0) return -1; // a leading zero: octal to some parsers
      part = part * 10 + (c - 0x30);
      if (part > 255) return -1;
      digits++;
    } else {
      return -1;
    }
  }
  return dots === 3 && digits > 0 ? value * 256 + part : -1;
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/**
 * Parses an IPv6 address (`::` compression, an IPv4 tail) into four words of
 * `out`; false when `text` is not one. Hand-written to keep a lookup cheap:
 * ipaddr.js builds objects and costs more than the search itself.
 */
export function parseIpv6(text: string, out: Uint32Array): boolean {
  const n = text.length;
  let count = 0;
  let gap = -1;
  let i = 0;
  if (text.charCodeAt(0) === 0x3a) {
    if (text.charCodeAt(1) !== 0x3a) return false;
    gap = 0;
    i = 2;
  }
  while (i < n) {
    if (count === 8) return false;
    const start = i;
    let value = 0;
    let h: number;
    while (i < n && (h = hexDigit(text.charCodeAt(i))) >= 0) {
      value = value * 16 + h;
      i++;
    }
    if (i < n && text.charCodeAt(i) === 0x2e) {
      const v4 = parseIpv4(text.slice(start));
      if (v4 < 0 || count > 6) return false;
      ipv6Groups[count++] = v4 >>> 16;
      ipv6Groups[count++] = v4 & 0xffff;
      break;
    }
    if (i === start || i - start > 4) return false;
    ipv6Groups[count++] = value;
    if (i === n) break;
    if (text.charCodeAt(i) !== 0x3a || ++i === n) return false;
    if (text.charCodeAt(i) === 0x3a) {
      if (gap >= 0) return false;
      gap = count;
      i++;
    }
  }
  if (gap < 0 ? count !== 8 : count > 7) return false;
  if (gap >= 0) {
    const tail = count - gap;
    ipv6Groups.copyWithin(8 - tail, gap, count);
    ipv6Groups.fill(0, gap, 8 - tail);
  }
  for (let k = 0; k < 4; k++) out[k] = ((ipv6Groups[2 * k]! << 16) | ipv6Groups[2 * k + 1]!) >>> 0;
  return true;
}

// --- search ------------------------------------------------------------------

/**
 * The last of `rows` rows, sorted by start, whose start is at or below the
 * address `startAtOrBelow` compares with; -1 when none is.
 */
export function lastStartAtOrBelow(rows: number, startAtOrBelow: (row: number) => boolean): number {
  let low = 0;
  let high = rows - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if (startAtOrBelow(mid)) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/** The AS of `address` in IPv4 columns, 0 when no range holds it. */
function findIpv4({ starts, ends, asns }: RangeColumns, address: number): number {
  const found = lastStartAtOrBelow(asns.length, (row) => starts[row]! <= address);
  return found >= 0 && address <= ends[found]! ? asns[found]! : 0;
}

/** Compares the `width`-word address at row `row` of `words` with the one at row `other` of `others`. */
export function compareRows(words: ArrayLike<number>, row: number, others: ArrayLike<number>, other: number, width: number): number {
  for (let k = 0; k < width; k++) {
    const a = words[row * width + k]!;
    const b = others[other * width + k]!;
    if (a !== b) return a < b ? -1 : 1;
  }
  return 0;
}

/** The AS of a four-word `address` in IPv6 columns, 0 when no range holds it. */
function findIpv6({ starts, ends, asns }: RangeColumns, address: Uint32Array): number {
  const found = lastStartAtOrBelow(asns.length, (row) => compareRows(starts, row, address, 0, 4) <= 0);
  return found >= 0 && compareRows(ends, found, address, 0, 4) >= 0 ? asns[found]! : 0;
}

// --- building from CSV ---------------------------------------------------------

/** Writes the address after row `from` of `source` as row `row` of `target`. */
function writeSuccessor(source: Uint32Array, from: number, target: Uint32Array, row: number, width: number): void {
  let carry = 1;
  for (let k = width - 1; k >= 0; k--) {
    const sum = source[from * width + k]! + carry;
    target[row * width + k] = sum >>> 0;
    carry = sum > 0xffffffff ? 1 : 0;
  }
}

/** Collects one family's rows, then sorts them and drops overlaps. */
class ColumnsBuilder {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly asns: number[] = [];
  private sorted = true;

  constructor(private readonly width: number) {}

  add(start: ArrayLike<number>, end: ArrayLike<number>, asn: number): void {
    const rows = this.asns.length;
    if (rows > 0 && compareRows(this.starts, rows - 1, start, 0, this.width) >= 0) this.sorted = false;
    for (let k = 0; k < this.width; k++) {
      this.starts.push(start[k]!);
      this.ends.push(end[k]!);
    }
    this.asns.push(asn);
  }

  finish(): { columns: RangeColumns; overlapping: number } {
    const { starts, ends, asns, width } = this;
    const order = Array.from(asns, (_, row) => row);
    // The format comes sorted; a hand-made file may not.
    if (!this.sorted) order.sort((a, b) => compareRows(starts, a, starts, b, width));
    const out = {
      starts: new Uint32Array(asns.length * width),
      ends: new Uint32Array(asns.length * width),
      asns: new Uint32Array(asns.length),
    };
    let rows = 0;
    let overlapping = 0;
    for (const row of order) {
      for (let k = 0; k < width; k++) {
        out.starts[rows * width + k] = starts[row * width + k]!;
        out.ends[rows * width + k] = ends[row * width + k]!;
      }
      if (rows > 0 && compareRows(out.starts, rows, out.ends, rows - 1, width) <= 0) {
        // Where two ranges overlap the earlier one wins; the later keeps what lies beyond it.
        overlapping++;
        if (compareRows(out.ends, rows, out.ends, rows - 1, width) <= 0) continue;
        writeSuccessor(out.ends, rows - 1, out.starts, rows, width);
      }
      out.asns[rows++] = asns[row]!;
    }
    return {
      columns: { starts: out.starts.slice(0, rows * width), ends: out.ends.slice(0, rows * width), asns: out.asns.slice(0, rows) },
      overlapping,
    };
  }
}

/** The fields of one CSV line (RFC 4180 quotes, `""` inside), or null when a quote is not closed. */
function splitCsvLine(line: string): string[] | null {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    if (line.charCodeAt(i) !== 0x22) {
      const comma = line.indexOf(',', i);
      if (comma < 0) {
        fields.push(line.slice(i));
        return fields;
      }
      fields.push(line.slice(i, comma));
      i = comma + 1;
      continue;
    }
    let value = '';
    i++;
    for (;;) {
      const close = line.indexOf('"', i);
      if (close < 0) return null;
      value += line.slice(i, close);
      i = close + 1;
      if (line.charCodeAt(i) !== 0x22) break;
      value += '"';
      i++;
    }
    fields.push(value);
    if (i === line.length) return fields;
    if (line.charCodeAt(i) !== 0x2c) return null;
    i++;
  }
}

const ASN_FIELD = /^\d{1,10}$/;
const rowStart = new Uint32Array(4);
const rowEnd = new Uint32Array(4);

/** Adds one CSV line to the builder of its family; false when it is malformed. */
function addLine(line: string, ipv4: ColumnsBuilder, ipv6: ColumnsBuilder): boolean {
  const fields = splitCsvLine(line);
  if (fields === null || fields.length < 3) return false;
  const start = fields[0]!.trim();
  const end = fields[1]!.trim();
  const asnField = fields[2]!.trim();
  if (!ASN_FIELD.test(asnField)) return false;
  const asn = Number(asnField);
  if (asn > 0xffffffff) return false;
  if (start.includes(':')) {
    if (!parseIpv6(start, rowStart) || !parseIpv6(end, rowEnd)) return false;
    if (compareRows(rowStart, 0, rowEnd, 0, 4) > 0) return false;
    ipv6.add(rowStart, rowEnd, asn);
    return true;
  }
  const first = parseIpv4(start);
  const last = parseIpv4(end);
  if (first < 0 || last < first) return false;
  rowStart[0] = first;
  rowEnd[0] = last;
  ipv4.add(rowStart, rowEnd, asn);
  return true;
}

/** Feeds every non-empty line of `file` to `onLine`, streaming. */
function readLines(file: string, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const input = createReadStream(file);
    input.once('error', reject);
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (line.length > 0) onLine(line);
    });
    lines.once('close', resolve);
  });
}

/** The table of CSV files in the ip-location-db format, parsed now (no cache). */
export async function buildRangeTable(csvFiles: readonly string[], source: string): Promise<AsnRangeTable> {
  const ipv4 = new ColumnsBuilder(1);
  const ipv6 = new ColumnsBuilder(4);
  let malformedLines = 0;
  for (const file of csvFiles) {
    await readLines(file, (line) => {
      if (!addLine(line, ipv4, ipv6)) malformedLines++;
    });
  }
  const v4 = ipv4.finish();
  const v6 = ipv6.finish();
  return new AsnRangeTable(
    source,
    v4.columns,
    v6.columns,
    {
      malformedLines,
      overlappingRanges: v4.overlapping + v6.overlapping,
    },
    'csv',
  );
}

// --- the cache file ------------------------------------------------------------
//
// magic (8 bytes) | header: 6 native-endian Uint32 | identity, UTF-8, zero-padded
// to 8 bytes | IPv4 starts, ends, asns | IPv6 starts, ends (4 words each), asns.
// Native byte order because the file never leaves the machine; the header's
// byte-order mark makes a foreign one read as stale.

type Header = [byteOrderMark: number, identityBytes: number, ipv4Ranges: number, ipv6Ranges: number, malformedLines: number, overlappingRanges: number];

const MAGIC = Buffer.from('SSASNTB1', 'latin1');
const BYTE_ORDER_MARK = 0x01020304;
const HEADER_WORDS = 6;
const PREFIX_BYTES = MAGIC.length + HEADER_WORDS * 4;

const padTo8 = (bytes: number): number => Math.ceil(bytes / 8) * 8;

function writeCache(file: string, identity: string, table: AsnRangeTable): void {
  const id = Buffer.from(identity, 'utf8');
  const { stats } = table;
  const header: Header = [BYTE_ORDER_MARK, id.length, stats.ipv4Ranges, stats.ipv6Ranges, stats.malformedLines, stats.overlappingRanges];
  const parts: NodeJS.ArrayBufferView[] = [
    MAGIC,
    new Uint32Array(header),
    id,
    Buffer.alloc(padTo8(id.length) - id.length),
    table.ipv4.starts,
    table.ipv4.ends,
    table.ipv4.asns,
    table.ipv6.starts,
    table.ipv6.ends,
    table.ipv6.asns,
  ];
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const fd = openSync(tmp, 'w');
    try {
      for (const part of parts) writeFileSync(fd, part);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** The table in `file`, or null when it is missing or not a cache of `identity`. */
async function readCache(file: string, identity: string, source: string): Promise<AsnRangeTable | null> {
  let buffer: Buffer;
  try {
    buffer = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (buffer.length < PREFIX_BYTES || !buffer.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  // Typed arrays need aligned offsets; a fresh copy is aligned.
  const bytes = buffer.byteOffset % 8 === 0 ? buffer : Buffer.from(new Uint8Array(buffer).buffer);
  let offset = MAGIC.length;
  const take = (words: number): Uint32Array => {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + offset, words);
    offset += words * 4;
    return view;
  };
  const [mark, idLength, v4, v6, malformedLines, overlappingRanges] = Array.from(take(HEADER_WORDS)) as Header;
  if (mark !== BYTE_ORDER_MARK) return null;
  if (bytes.length !== PREFIX_BYTES + padTo8(idLength) + v4 * 12 + v6 * 36) return null;
  if (bytes.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + idLength) !== identity) return null;
  offset += padTo8(idLength);
  const ipv4 = { starts: take(v4), ends: take(v4), asns: take(v4) };
  const ipv6 = { starts: take(v6 * 4), ends: take(v6 * 4), asns: take(v6) };
  return new AsnRangeTable(source, ipv4, ipv6, { malformedLines, overlappingRanges }, 'cache');
}
