// ASN lookups on real data: the bundled table (built from @ip-location-db/asn),
// CSV files and a .mmdb written here; the CSV's binary cache; and the
// rate-limit bucket rule.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { BUNDLED_ASN_DIR, CompactAsnTable } from '../../src/limits/asn/asn-compact-table.js';
import { type AsnLookup, rateLimitBucket } from '../../src/limits/asn/asn-lookup.js';
import { AsnRangeTable } from '../../src/limits/asn/asn-range-table.js';
import { openAsnLookup } from '../../src/limits/asn/open-asn-lookup.js';
import { writeMmdb } from '../helpers/write-mmdb.js';

const scratch = mkdtempSync(join(tmpdir(), 'selfscan-asn-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function rangeTable(lookup: AsnLookup): AsnRangeTable {
  expect(lookup).toBeInstanceOf(AsnRangeTable);
  return lookup as AsnRangeTable;
}

describe('rateLimitBucket', () => {
  it('names the AS when there is one', () => {
    expect(rateLimitBucket('8.8.8.8', 15169)).toBe('AS15169');
    expect(rateLimitBucket('2001:4860:4860::8888', 15169)).toBe('AS15169');
  });

  it('falls back to the /24 of an IPv4 address', () => {
    expect(rateLimitBucket('198.51.100.77', null)).toBe('198.51.100.0/24');
    expect(rateLimitBucket('203.0.113.0', null)).toBe('203.0.113.0/24');
  });

  it('falls back to the /48 of an IPv6 address, printed as ipaddr.js prints it', () => {
    expect(rateLimitBucket('2001:db8:1:2:3::4', null)).toBe('2001:db8:1::/48');
    expect(rateLimitBucket('2001:db8:0:ffff::1', null)).toBe('2001:db8::/48');
  });
});

describe('the bundled table (built from @ip-location-db/asn)', () => {
  const dataDir = join(scratch, 'bundled');
  let lookup: AsnLookup;

  beforeAll(async () => {
    lookup = await openAsnLookup({ dataDir });
  });

  it('finds the AS of well-known addresses of both families', () => {
    expect(lookup.asnOf('8.8.8.8')).toBe(15169);
    expect(lookup.asnOf('1.1.1.1')).toBe(13335);
    expect(lookup.asnOf('2001:4860:4860::8888')).toBe(15169);
  });

  it('answers null for addresses in no range and for non-addresses', () => {
    expect(lookup.asnOf('0.0.0.1')).toBeNull();
    expect(lookup.asnOf('10.1.2.3')).toBeNull();
    expect(lookup.asnOf('2001:db8::1')).toBeNull();
    expect(lookup.asnOf('not-an-ip')).toBeNull();
  });

  it('names the package and version it was built from as its source, and leaves the data dir alone', () => {
    expect(lookup).toBeInstanceOf(CompactAsnTable);
    expect(lookup.source).toMatch(/^@ip-location-db\/asn@\d+\.\d+\.\d+$/);
    const { ipv4Rows, ipv6Rows } = (lookup as CompactAsnTable).stats;
    expect(ipv4Rows).toBeGreaterThan(400_000);
    expect(ipv6Rows).toBeGreaterThan(100_000);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('ships the data licences and credits beside the table', () => {
    const credits = readdirSync(new URL('ip-location-db/', BUNDLED_ASN_DIR)).sort();
    expect(credits).toEqual(['DBIP-LICENSE', 'MODIFICATIONS', 'NRO_LICENSE', 'README.md', 'ROUTEVIEWS-LICENSE']);
    expect(readFileSync(new URL('README.md', BUNDLED_ASN_DIR), 'utf8')).toContain('CC BY 4.0');
  });

  it('says to build it when the table is missing', async () => {
    await expect(openAsnLookup({ dataDir, bundledTable: join(scratch, 'none.bin.br') })).rejects.toThrow(/not built.*npm run build/);
  });
});

describe('a CSV file in the ip-location-db format', () => {
  const dataDir = join(scratch, 'csv-data');
  const csv = join(scratch, 'asn.csv');
  // Whole seconds, so that the mtime written back reads the same afterwards.
  const mtime = Math.floor(Date.now() / 1000) - 3600;
  const rows = (googleAsn: number): string =>
    `${[
      '1.0.0.0,1.0.0.255,13335,"Cloudflare, Inc."',
      `8.8.8.0,8.8.8.255,${googleAsn},Google LLC`,
      'not,an,address',
      '2001:db8:1::,2001:db8:1:ffff:ffff:ffff:ffff:ffff,64500,"Example, ""Six"" Ltd"',
      '9.9.9.255,9.9.9.0,19281,start after end',
      '"1.2.3.0,1.2.3.255,64501,unterminated quote',
      '',
      '8.8.8.128,8.8.9.10,64502,overlaps the Google row',
      '"7.0.0.0","7.0.0.255","64503"',
      '2001:db8::,2001:db8:0:ffff:ffff:ffff:ffff:ffff,64504,"mixed in, and out of order"',
    ].join('\n')}\n`;
  const write = (googleAsn: number, seconds: number): void => {
    writeFileSync(csv, rows(googleAsn));
    utimesSync(csv, seconds, seconds);
  };

  beforeAll(() => write(15169, mtime));

  it('finds ranges at their first and last addresses and not one past', async () => {
    const lookup = await openAsnLookup({ asnDatabase: csv, dataDir });
    expect(lookup.source).toBe(csv);
    expect(lookup.asnOf('1.0.0.0')).toBe(13335);
    expect(lookup.asnOf('1.0.0.255')).toBe(13335);
    expect(lookup.asnOf('0.255.255.255')).toBeNull();
    expect(lookup.asnOf('1.0.1.0')).toBeNull();
    expect(lookup.asnOf('7.0.0.7')).toBe(64503);
    expect(lookup.asnOf('2001:db8:1::')).toBe(64500);
    expect(lookup.asnOf('2001:db8:1:ffff:ffff:ffff:ffff:ffff')).toBe(64500);
    expect(lookup.asnOf('2001:db8:2::')).toBeNull();
    expect(lookup.asnOf('2001:db8::')).toBe(64504);
    expect(lookup.asnOf('2001:db8:0:ffff:ffff:ffff:ffff:ffff')).toBe(64504);
    expect(lookup.asnOf('2001:db7:ffff:ffff:ffff:ffff:ffff:ffff')).toBeNull();
  });

  it('lets the earlier of two overlapping ranges win and keeps the rest of the later', async () => {
    const lookup = await openAsnLookup({ asnDatabase: csv, dataDir });
    expect(lookup.asnOf('8.8.8.255')).toBe(15169);
    expect(lookup.asnOf('8.8.9.0')).toBe(64502);
    expect(lookup.asnOf('8.8.9.10')).toBe(64502);
    expect(lookup.asnOf('8.8.9.11')).toBeNull();
  });

  it('counts the malformed lines and the overlap it skipped', async () => {
    const { stats } = rangeTable(await openAsnLookup({ asnDatabase: csv, dataDir }));
    expect(stats).toEqual({ ipv4Ranges: 4, ipv6Ranges: 2, malformedLines: 3, overlappingRanges: 1 });
  });

  it('reads the cache instead of the CSV while size and mtime stay, and rebuilds when they change', async () => {
    rmSync(dataDir, { recursive: true, force: true });
    expect(rangeTable(await openAsnLookup({ asnDatabase: csv, dataDir })).loadedFrom).toBe('csv');

    // Same size and mtime, different content: only a lookup that never read the CSV still says 15169.
    write(15170, mtime);
    const cached = rangeTable(await openAsnLookup({ asnDatabase: csv, dataDir }));
    expect(cached.loadedFrom).toBe('cache');
    expect(cached.asnOf('8.8.8.8')).toBe(15169);

    write(15170, mtime + 1);
    const rebuilt = rangeTable(await openAsnLookup({ asnDatabase: csv, dataDir }));
    expect(rebuilt.loadedFrom).toBe('csv');
    expect(rebuilt.asnOf('8.8.8.8')).toBe(15170);
    expect(readdirSync(dataDir)).toHaveLength(1);
  });

  it('rebuilds a damaged cache file', async () => {
    write(15169, mtime);
    await openAsnLookup({ asnDatabase: csv, dataDir });
    const [cacheFile] = readdirSync(dataDir);
    writeFileSync(join(dataDir, cacheFile!), 'SSASNTB1 but nothing after it');
    const lookup = rangeTable(await openAsnLookup({ asnDatabase: csv, dataDir }));
    expect(lookup.loadedFrom).toBe('csv');
    expect(lookup.asnOf('8.8.8.8')).toBe(15169);
    expect(rangeTable(await openAsnLookup({ asnDatabase: csv, dataDir })).loadedFrom).toBe('cache');
  });
});

describe('a MaxMind-format .mmdb file', () => {
  const path = join(scratch, 'asn.mmdb');

  beforeAll(() =>
    writeMmdb(path, [
      { cidr: '198.51.100.0/24', data: { autonomous_system_number: 64510, autonomous_system_organization: 'Example Four' } },
      { cidr: '2001:db8:100::/40', data: { autonomous_system_number: 64511, autonomous_system_organization: 'Example, Six' } },
      { cidr: '203.0.113.128/25', data: { autonomous_system_organization: 'no number' } },
    ]),
  );

  it('finds the autonomous_system_number of both families, at network edges', async () => {
    const lookup = await openAsnLookup({ asnDatabase: path, dataDir: join(scratch, 'mmdb-data') });
    expect(lookup.source).toBe(path);
    expect(lookup.asnOf('198.51.100.0')).toBe(64510);
    expect(lookup.asnOf('198.51.100.255')).toBe(64510);
    expect(lookup.asnOf('198.51.101.0')).toBeNull();
    expect(lookup.asnOf('2001:db8:100::')).toBe(64511);
    expect(lookup.asnOf('2001:db8:1ff:ffff:ffff:ffff:ffff:ffff')).toBe(64511);
    expect(lookup.asnOf('2001:db8:200::')).toBeNull();
  });

  it('answers null for records without a number and for non-addresses', async () => {
    const lookup = await openAsnLookup({ asnDatabase: path, dataDir: join(scratch, 'mmdb-data') });
    expect(lookup.asnOf('203.0.113.200')).toBeNull();
    expect(lookup.asnOf('203.0.113.1')).toBeNull();
    expect(lookup.asnOf('nonsense')).toBeNull();
  });
});
