// Picks the ASN data the operator configured (`asnDatabase`), or the bundled
// @ip-location-db/asn tables, and opens a lookup on it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, resolve } from 'node:path';

import type { AsnLookup } from './asn-lookup.js';
import { openMmdbLookup } from './asn-mmdb.js';
import { openRangeTable } from './asn-range-table.js';

/** Where the ASN data comes from. */
export interface OpenAsnLookupOptions {
  /** A MaxMind-format `.mmdb` file, or else a CSV in the ip-location-db format; default the bundled data. */
  asnDatabase?: string;
  /** Where range tables built from CSV are cached (`asn-table-<hash>.bin`). */
  dataDir: string;
}

/**
 * Opens the ASN lookup that `options` name: an `.mmdb` path is read with
 * mmdb-lib; any other path is a CSV (`start_ip,end_ip,asn,org`, IPv4 and IPv6
 * rows mixed as you like); none means the `@ip-location-db/asn` package's
 * CSVs. CSV data becomes a range table cached in the data dir, rebuilt when
 * the source changes (CSV: size or mtime; bundled: package version). The
 * first build of the bundled data parses ~515k lines; later starts read the
 * cache. Logs nothing: the caller logs `source`.
 */
export async function openAsnLookup(options: OpenAsnLookupOptions): Promise<AsnLookup> {
  if (options.asnDatabase === undefined) return openBundled(options.dataDir);
  const path = resolve(options.asnDatabase);
  if (extname(path).toLowerCase() === '.mmdb') return openMmdbLookup(path);
  const { size, mtimeMs } = await stat(path);
  return openRangeTable({
    csvFiles: [path],
    identity: `csv ${path} ${size} ${mtimeMs}`,
    source: path,
    cacheFile: cacheFileFor(options.dataDir, `csv ${path}`),
  });
}

const BUNDLED_PACKAGE = '@ip-location-db/asn';

async function openBundled(dataDir: string): Promise<AsnLookup> {
  const manifest = createRequire(import.meta.url).resolve(`${BUNDLED_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const source = `${BUNDLED_PACKAGE}@${version}`;
  const dir = dirname(manifest);
  return openRangeTable({
    csvFiles: [join(dir, 'asn-ipv4.csv'), join(dir, 'asn-ipv6.csv')],
    identity: source,
    source,
    cacheFile: cacheFileFor(dataDir, BUNDLED_PACKAGE),
  });
}

/** One cache file per source location, so a changed source overwrites its stale table. */
function cacheFileFor(dataDir: string, location: string): string {
  const hash = createHash('sha256').update(location).digest('hex').slice(0, 16);
  return join(dataDir, `asn-table-${hash}.bin`);
}
