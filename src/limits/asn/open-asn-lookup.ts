// Picks the ASN data the operator configured (`asnDatabase`), or the table
// the package ships (built from @ip-location-db/asn at pack time), and opens
// a lookup on it.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';

import { BUNDLED_ASN_DIR, BUNDLED_ASN_TABLE, openCompactTable } from './asn-compact-table.js';
import type { AsnLookup } from './asn-lookup.js';
import { openMmdbLookup } from './asn-mmdb.js';
import { openRangeTable } from './asn-range-table.js';

/** Where the ASN data comes from. */
export interface OpenAsnLookupOptions {
  /** A MaxMind-format `.mmdb` file, or else a CSV in the ip-location-db format; default the bundled table. */
  asnDatabase?: string;
  /** Where range tables built from CSV are cached (`asn-table-<hash>.bin`). */
  dataDir: string;
  /** The bundled table's file; default dist/asn/asn-table.bin.br of this package (tests name another). */
  bundledTable?: string | URL;
}

/**
 * Opens the ASN lookup that `options` name: an `.mmdb` path is read with
 * mmdb-lib; any other path is a CSV (`start_ip,end_ip,asn,org`, IPv4 and IPv6
 * rows mixed as you like), which becomes a range table cached in the data
 * dir, rebuilt when its size or mtime changes; none means the bundled table
 * (`source`: the `@ip-location-db/asn@version` it was built from), read
 * whole, the data dir untouched. Throws when the bundled table is missing (a
 * checkout not built). Logs nothing: the caller logs `source`.
 */
export async function openAsnLookup(options: OpenAsnLookupOptions): Promise<AsnLookup> {
  if (options.asnDatabase === undefined) return openBundled(options.bundledTable ?? new URL(BUNDLED_ASN_TABLE, BUNDLED_ASN_DIR));
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

function openBundled(table: string | URL): Promise<AsnLookup> {
  if (!existsSync(table)) throw new Error(`the bundled ASN table is not built (no ${table instanceof URL ? table.pathname : table}): run \`npm run build\``);
  return openCompactTable(table);
}

/** One cache file per source location, so a changed source overwrites its stale table. */
function cacheFileFor(dataDir: string, location: string): string {
  const hash = createHash('sha256').update(location).digest('hex').slice(0, 16);
  return join(dataDir, `asn-table-${hash}.bin`);
}
