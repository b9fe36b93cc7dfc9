// npm run bench:asn — the bundled ASN table: its cold build (parse ~515k CSV
// lines, write the cache), its load from the cache, and what one lookup costs
// for random global IPv4 addresses and for IPv6 addresses inside its ranges.
// Prints medians; `--runs N` (default 5).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import ipaddr from 'ipaddr.js';

import type { AsnLookup } from '../../src/limits/asn/asn-lookup.js';
import { AsnRangeTable } from '../../src/limits/asn/asn-range-table.js';
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

const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-bench-asn-'));
try {
  console.log(`machine: ${machineLine()}`);
  let started = performance.now();
  const built = await openAsnLookup({ dataDir });
  const buildMs = performance.now() - started;
  if (!(built instanceof AsnRangeTable) || built.loadedFrom !== 'csv') throw new Error('expected a fresh build');

  const loads: number[] = [];
  let table: AsnRangeTable | undefined;
  for (let i = 0; i < runs; i++) {
    started = performance.now();
    const opened = await openAsnLookup({ dataDir });
    loads.push(performance.now() - started);
    if (!(opened instanceof AsnRangeTable) || opened.loadedFrom !== 'cache') throw new Error('expected the cache');
    table = opened;
  }
  if (table === undefined) throw new Error('no table');
  const { ipv4Ranges, ipv6Ranges, overlappingRanges } = table.stats;

  const ipv4 = Array.from({ length: LOOKUPS }, randomGlobalIpv4);
  const ipv6 = Array.from({ length: LOOKUPS }, () => randomTableIpv6(table));
  const v4 = timeLookups(table, ipv4);
  const v6 = timeLookups(table, ipv6);

  const lines = [
    `data: ${table.source}, ${ipv4Ranges.toLocaleString('en')} IPv4 and ${ipv6Ranges.toLocaleString('en')} IPv6 ranges (overlapping ranges trimmed: ${overlappingRanges})`,
    `cold build (parse both CSVs, write the cache): ${buildMs.toFixed(0)} ms`,
    `cache load: median ${median(loads).toFixed(1)} ms (runs: ${loads.map((ms) => ms.toFixed(1)).join(', ')} ms)`,
    `IPv4 lookup, ${LOOKUPS.toLocaleString('en')} random global addresses: median ${v4.ns.toFixed(0)} ns/lookup (${(v4.found * 100).toFixed(1)}% have an ASN)`,
    `IPv6 lookup, ${LOOKUPS.toLocaleString('en')} random addresses inside the table's ranges: median ${v6.ns.toFixed(0)} ns/lookup (${(v6.found * 100).toFixed(1)}% have an ASN)`,
  ];
  for (const line of lines) console.log(line);
  recordSection('asn', 'ASN lookup (npm run bench:asn)', [
    `The bundled table in a fresh data dir: one cold build, then ${runs} loads from the cache; each lookup set timed ${runs} times after a warm-up pass.`,
    '',
    ...lines.map((line) => `- ${line}`),
  ]);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
