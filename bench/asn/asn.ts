// npm run bench:asn — the ASN tables: the bundled compact table the service
// loads at every start (dist/asn, built by npm run build:asn) against the way
// it used to load the same data, parsing the ~515k CSV lines of
// @ip-location-db/asn into a range table (its first start) cached in the data
// dir (its later starts), still the way of an operator's CSV: sizes on disk,
// load times, the bytes each holds, and what one lookup costs on the compact
// table for random global IPv4 addresses and for IPv6 addresses inside its
// ranges. Prints medians; `--runs N` (default 5).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import ipaddr from 'ipaddr.js';

import { BUNDLED_ASN_DIR, BUNDLED_ASN_TABLE, CompactAsnTable } from '../../src/limits/asn/asn-compact-table.js';
import type { AsnLookup } from '../../src/limits/asn/asn-lookup.js';
import { type AsnRangeTable, buildRangeTable, openRangeTable } from '../../src/limits/asn/asn-range-table.js';
import { openAsnLookup } from '../../src/limits/asn/open-asn-lookup.js';
import { machineLine, median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';

const LOOKUPS = 1_000_000;
const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Math.max(1, Number(values.runs));

function randomGlobalIpv4(): string {
  for (;;) {
    const address = ipaddr.fromByteArray(Array.from({ length: 4 }, () => Math.floor(Math.random() * 256)));
    if (address.range() === 'unicast') return address.toString();
  }
}

/** A uniformly random address inside a uniformly chosen IPv6 range of `table`. */
function randomTableIpv6(table: AsnRangeTable): string {
  const row = Math.floor(Math.random() * table.ipv6.asns.length);
  const word = (words: Uint32Array, k: number): bigint => BigInt(words[row * 4 + k]!);
  const value = (words: Uint32Array): bigint => (((((word(words, 0) << 32n) | word(words, 1)) << 32n) | word(words, 2)) << 32n) | word(words, 3);
  const start = value(table.ipv6.starts);
  const span = value(table.ipv6.ends) - start + 1n;
  let random = 0n;
  for (let k = 0; k < 9; k++) random = (random << 16n) | BigInt(Math.floor(Math.random() * 65536));
  const address = start + (random % span);
  return ipaddr.fromByteArray(Array.from({ length: 16 }, (_, k) => Number((address >> BigInt(120 - 8 * k)) & 0xffn))).toString();
}

/** Median ns per lookup over `runs` timed passes (after one untimed warm-up), and the share found. */
function timeLookups(lookup: AsnLookup, ips: readonly string[]): { ns: number; found: number } {
  let found = 0;
  const pass = (): number => {
    found = 0;
    const started = process.hrtime.bigint();
    for (const ip of ips) if (lookup.asnOf(ip) !== null) found++;
    return Number(process.hrtime.bigint() - started) / ips.length;
  };
  pass();
  const times = Array.from({ length: runs }, pass);
  return { ns: median(times), found: found / ips.length };
}

const manifest = createRequire(import.meta.url).resolve('@ip-location-db/asn/package.json');
const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
const csvFiles = ['asn-ipv4.csv', 'asn-ipv6.csv'].map((file) => join(dirname(manifest), file));
const compactFile = fileURLToPath(new URL(BUNDLED_ASN_TABLE, BUNDLED_ASN_DIR));
const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
const held = (columns: readonly { byteLength: number }[]): number => columns.reduce((sum, column) => sum + column.byteLength, 0);

/** Median milliseconds of `runs` calls of `open`, and the last thing it opened. */
async function timeLoads<T>(open: () => Promise<T>): Promise<{ ms: number; runs: number[]; opened: T }> {
  const runsMs: number[] = [];
  let opened: T | undefined;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    opened = await open();
    runsMs.push(performance.now() - started);
  }
  return { ms: median(runsMs), runs: runsMs, opened: opened! };
}

const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-bench-asn-'));
try {
  console.log(`machine: ${machineLine()}`);
  const cacheFile = join(dataDir, 'asn-table.bin');
  const source = { csvFiles, identity: version, source: `@ip-location-db/asn@${version}`, cacheFile };
  const parses = await timeLoads(() => buildRangeTable(csvFiles, source.source));
  const csv: AsnRangeTable = parses.opened;
  await openRangeTable(source); // writes the cache
  const cacheLoads = await timeLoads(() => openRangeTable(source));
  if (cacheLoads.opened.loadedFrom !== 'cache') throw new Error('expected the cache');
  const compactLoads = await timeLoads(() => openAsnLookup({ dataDir }));
  const table = compactLoads.opened;
  if (!(table instanceof CompactAsnTable)) throw new Error('expected the bundled compact table');
  const { ipv4Ranges, ipv6Ranges, overlappingRanges } = csv.stats;
  const { ipv4Rows, ipv6Rows } = table.stats;

  const ipv4 = Array.from({ length: LOOKUPS }, randomGlobalIpv4);
  const ipv6 = Array.from({ length: LOOKUPS }, () => randomTableIpv6(csv));
  const v4 = timeLookups(table, ipv4);
  const v6 = timeLookups(table, ipv6);
  const ms = (loads: { runs: number[] }): string => loads.runs.map((run) => run.toFixed(1)).join(', ');
  const csvBytes = csvFiles.reduce((sum, file) => sum + statSync(file).size, 0);
  const packageBytes = directoryBytes(dirname(manifest));
  const columns = (t: { ipv4: object; ipv6: object }): number => held([...Object.values(t.ipv4), ...Object.values(t.ipv6)] as { byteLength: number }[]);

  const lines = [
    `data: ${table.source}, ${ipv4Ranges.toLocaleString('en')} IPv4 and ${ipv6Ranges.toLocaleString('en')} IPv6 ranges (overlapping ranges trimmed: ${overlappingRanges}); compact: ${ipv4Rows.toLocaleString('en')} and ${ipv6Rows.toLocaleString('en')} rows (range starts and gaps)`,
    `on disk: the package ${mib(packageBytes)} (CSVs ${mib(csvBytes)}), the range table's cache ${mib(statSync(cacheFile).size)}; the compact table ${mib(statSync(compactFile).size)} (brotli; ${mib(columns(table))} unpacked)`,
    `before, first start (parse both CSVs): median ${parses.ms.toFixed(0)} ms (runs: ${ms(parses)} ms); later starts (the cache in the data dir): median ${cacheLoads.ms.toFixed(1)} ms (runs: ${ms(cacheLoads)} ms); holds ${mib(columns(csv))}`,
    `now, every start (the compact table: read, brotli, undo the deltas): median ${compactLoads.ms.toFixed(1)} ms (runs: ${ms(compactLoads)} ms); holds ${mib(columns(table))}`,
    `IPv4 lookup, ${LOOKUPS.toLocaleString('en')} random global addresses: median ${v4.ns.toFixed(0)} ns/lookup (${(v4.found * 100).toFixed(1)}% have an ASN)`,
    `IPv6 lookup, ${LOOKUPS.toLocaleString('en')} random addresses inside the table's ranges: median ${v6.ns.toFixed(0)} ns/lookup (${(v6.found * 100).toFixed(1)}% have an ASN)`,
  ];
  for (const line of lines) console.log(line);
  recordSection('asn', 'ASN lookup (npm run bench:asn)', [
    `The bundled compact table against the range table parsed from the CSVs it is built from (and that table's cache in a fresh data dir): ${runs} loads of each; lookups on the compact table, each set timed ${runs} times after a warm-up pass.`,
    '',
    ...lines.map((line) => `- ${line}`),
  ]);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/** Bytes of the files under `dir`. */
function directoryBytes(dir: string): number {
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += statSync(join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}
