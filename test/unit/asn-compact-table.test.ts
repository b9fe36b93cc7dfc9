// The bundled compact ASN table answers exactly as the range table built from
// the CSVs of @ip-location-db/asn (a devDependency, read here as the build
// reads it): at every range's first and last address and one beyond each,
// and at random addresses of both families. And the encoding's edges on a
// small hand-made table: gaps, adjacent ranges, AS 0 rows, the top address.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { beforeAll, describe, expect, it } from 'vitest';

import { CompactAsnTable, decodeCompactTable, encodeCompactTable } from '../../src/limits/asn/asn-compact-table.js';
import { type AsnRangeTable, buildRangeTable } from '../../src/limits/asn/asn-range-table.js';
import { openAsnLookup } from '../../src/limits/asn/open-asn-lookup.js';

const ipv4Text = (value: number): string => [24, 16, 8, 0].map((shift) => (value >>> shift) & 255).join('.');

/** Four words, most significant first, as an uncompressed IPv6 address. */
function ipv6Text(words: ArrayLike<number>, at = 0): string {
  const groups: string[] = [];
  for (let k = 0; k < 4; k++) {
    const word = words[at + k]!;
    groups.push((word >>> 16).toString(16), (word & 0xffff).toString(16));
  }
  return groups.join(':');
}

/** The four words of `words[at..]` plus `delta` (−1 or +1), or null past either end of the space. */
function step(words: ArrayLike<number>, at: number, delta: 1 | -1): Uint32Array | null {
  const out = Uint32Array.from({ length: 4 }, (_, k) => words[at + k]!);
  for (let k = 3; k >= 0; k--) {
    const value = out[k]! + delta;
    out[k] = value >>> 0;
    if (value >= 0 && value <= 0xffffffff) return out;
  }
  return null;
}

/** Every address where `table` changes answer, one beyond each, and `randoms` random ones per family. */
function probes(table: AsnRangeTable, randoms: number): { ipv4: string[]; ipv6: string[] } {
  const ipv4: string[] = [];
  const { starts, ends } = table.ipv4;
  for (let row = 0; row < starts.length; row++) {
    const start = starts[row]!;
    const end = ends[row]!;
    ipv4.push(ipv4Text(start), ipv4Text(end));
    if (start > 0) ipv4.push(ipv4Text(start - 1));
    if (end < 0xffffffff) ipv4.push(ipv4Text(end + 1));
  }
  for (let i = 0; i < randoms; i++) ipv4.push(ipv4Text(Math.floor(Math.random() * 2 ** 32)));
  const ipv6: string[] = [];
  const six = table.ipv6;
  for (let row = 0; row < six.asns.length; row++) {
    ipv6.push(ipv6Text(six.starts, row * 4), ipv6Text(six.ends, row * 4));
    const before = step(six.starts, row * 4, -1);
    const after = step(six.ends, row * 4, 1);
    if (before) ipv6.push(ipv6Text(before));
    if (after) ipv6.push(ipv6Text(after));
  }
  const word = (): number => Math.floor(Math.random() * 2 ** 32);
  for (let i = 0; i < randoms; i++) {
    // Half anywhere in 2000::/3 (global unicast), half inside a random range.
    if (i % 2 === 0) {
      ipv6.push(ipv6Text([0x20000000 + Math.floor(Math.random() * 2 ** 29), word(), word(), word()]));
    } else {
      const row = Math.floor(Math.random() * six.asns.length) * 4;
      const inside = Uint32Array.from({ length: 4 }, (_, k) => six.starts[row + k]!);
      // Random low words below the range's end where its start and end differ only there.
      if (inside[0] === six.ends[row] && inside[1] === six.ends[row + 1]) {
        inside[2] = six.starts[row + 2]! + Math.floor(Math.random() * (six.ends[row + 2]! - six.starts[row + 2]! + 1));
        inside[3] = inside[2] === six.ends[row + 2] ? Math.min(word(), six.ends[row + 3]!) : word();
      }
      ipv6.push(ipv6Text(inside));
    }
  }
  return { ipv4, ipv6 };
}

/** The addresses where the two lookups differ, with both answers (the first 10). */
function differences(ips: readonly string[], expected: AsnRangeTable, actual: CompactAsnTable): string[] {
  const out: string[] = [];
  for (const ip of ips) {
    const want = expected.asnOf(ip);
    const got = actual.asnOf(ip);
    if (want !== got && out.push(`${ip}: csv ${want}, compact ${got}`) >= 10) break;
  }
  return out;
}

describe('the bundled compact table against the CSV of @ip-location-db/asn', () => {
  let csv: AsnRangeTable;
  let compact: CompactAsnTable;
  let version: string;

  beforeAll(async () => {
    const manifest = createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json');
    version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
    const dir = dirname(manifest);
    csv = await buildRangeTable([join(dir, 'asn-ipv4.csv'), join(dir, 'asn-ipv6.csv')], 'csv');
    const lookup = await openAsnLookup({ dataDir: join(tmpdir(), 'selfscan-unused-data-dir') });
    expect(lookup).toBeInstanceOf(CompactAsnTable);
    compact = lookup as CompactAsnTable;
  }, 120_000);

  it('is built from the installed version of the package', () => {
    expect(compact.source).toBe(`@ip-location-db/asn@${version}`);
  });

  it('answers as the CSV table does at every range edge and one beyond, and at random addresses', () => {
    const { ipv4, ipv6 } = probes(csv, 200_000);
    expect(ipv4.length).toBeGreaterThan(1_500_000);
    expect(ipv6.length).toBeGreaterThan(400_000);
    expect(differences(ipv4, csv, compact)).toEqual([]);
    expect(differences(ipv6, csv, compact)).toEqual([]);
    // Each family has addresses with and without an AS among them.
    expect(ipv4.some((ip) => compact.asnOf(ip) === null) && ipv4.some((ip) => compact.asnOf(ip) !== null)).toBe(true);
    expect(ipv6.some((ip) => compact.asnOf(ip) === null) && ipv6.some((ip) => compact.asnOf(ip) !== null)).toBe(true);
  }, 120_000);
});

describe('the compact encoding', () => {
  const csvFile = join(tmpdir(), `selfscan-asn-compact-${process.pid}.csv`);
  let csv: AsnRangeTable;
  let compact: CompactAsnTable;

  beforeAll(async () => {
    writeFileSync(
      csvFile,
      [
        '0.0.0.0,0.0.0.3,64500,at the bottom',
        '0.0.0.4,0.0.0.7,64501,adjacent',
        '0.0.0.8,0.0.0.9,64501,adjacent, same AS',
        '0.0.0.12,0.0.0.13,0,AS 0 after a gap',
        '0.0.0.14,0.0.0.15,64502,after AS 0',
        '0.0.0.20,0.0.0.20,64503,one address',
        '255.255.255.250,255.255.255.255,64504,at the top',
        '::,::3,64510,at the bottom',
        '::4,::7,64511,adjacent',
        '::8,::8,64511,adjacent, same AS',
        '::ffff:ffff,::1:0:0,64512,across a word',
        '::1:0:3,::1:0:3,0,AS 0',
        '2001:db8::,2001:db8:ffff:ffff:ffff:ffff:ffff:ffff,64513,a /32',
        'ffff:ffff:ffff:ffff:ffff:ffff:ffff:fff0,ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff,64514,at the top',
      ].join('\n'),
    );
    csv = await buildRangeTable([csvFile], 'test');
    compact = decodeCompactTable(encodeCompactTable(csv, 'test source'));
  });

  it('keeps the source and merges adjacent rows of one AS', () => {
    expect(compact.source).toBe('test source');
    // Both families: the bottom AS, the next (two ranges), 0 (a gap, or a gap and an AS 0 row), …, the top AS.
    expect(compact.stats).toEqual({ ipv4Rows: 8, ipv6Rows: 8 });
  });

  it('answers as the range table at every address of the small IPv4 space and around the IPv6 edges', () => {
    const ipv4 = Array.from({ length: 32 }, (_, i) => ipv4Text(i));
    for (let i = 0; i < 16; i++) ipv4.push(ipv4Text(0xffffffff - i));
    expect(differences(ipv4, csv, compact)).toEqual([]);
    const { ipv6 } = probes(csv, 1000);
    ipv6.push('::9', '::a', '::1:0:1', '::1:0:4', '2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', '2001:db9::');
    expect(differences(ipv6, csv, compact)).toEqual([]);
    expect(compact.asnOf('0.0.0.9')).toBe(64501);
    expect(compact.asnOf('0.0.0.12')).toBeNull();
    expect(compact.asnOf('255.255.255.255')).toBe(64504);
    expect(compact.asnOf('::1:0:0')).toBe(64512);
    expect(compact.asnOf('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(64514);
    expect(compact.asnOf('not an address')).toBeNull();
  });

  it('refuses bytes that are not a table', () => {
    expect(() => decodeCompactTable(Buffer.from('SSASNCT1'))).toThrow();
  });
});
