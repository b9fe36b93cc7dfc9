// `npm run build:asn` (part of `npm run build`, so of prepack): the bundled
// ASN table. Reads the CSVs of @ip-location-db/asn (a devDependency: only
// this build reads it), writes the compact table the service loads
// (src/limits/asn/asn-compact-table.ts) into dist/asn/, and beside it the
// data's licences and credits, which the package ships with it. Does nothing
// when the table there is already of the installed package's version
// (`--force` rebuilds it anyway).
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { BUNDLED_ASN_DIR, BUNDLED_ASN_TABLE, decodeCompactTable, encodeCompactTable } from '../src/limits/asn/asn-compact-table.js';
import { buildRangeTable } from '../src/limits/asn/asn-range-table.js';

const PACKAGE = '@ip-location-db/asn';
/** The package's licence and credit files, copied as they are. */
const CREDIT_FILES = ['DBIP-LICENSE', 'ROUTEVIEWS-LICENSE', 'NRO_LICENSE', 'MODIFICATIONS', 'README.md'];

const out = fileURLToPath(BUNDLED_ASN_DIR);
const tableFile = join(out, BUNDLED_ASN_TABLE);
const manifest = createRequire(import.meta.url).resolve(`${PACKAGE}/package.json`);
const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
const source = `${PACKAGE}@${version}`;
const from = dirname(manifest);

function current(): boolean {
  if (!existsSync(tableFile) || CREDIT_FILES.some((file) => !existsSync(join(out, 'ip-location-db', file)))) return false;
  try {
    return decodeCompactTable(readFileSync(tableFile)).source === source;
  } catch {
    return false;
  }
}

if (!process.argv.includes('--force') && current()) {
  console.log(`build:asn: ${tableFile} is of ${source}`);
  process.exit(0);
}

const started = performance.now();
const table = await buildRangeTable([join(from, 'asn-ipv4.csv'), join(from, 'asn-ipv6.csv')], source);
const { malformedLines, ipv4Ranges, ipv6Ranges } = table.stats;
if (malformedLines > 0) throw new Error(`build:asn: ${malformedLines} malformed lines in ${source}`);
const bytes = encodeCompactTable(table, source);

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'ip-location-db'), { recursive: true });
for (const file of CREDIT_FILES) copyFileSync(join(from, file), join(out, 'ip-location-db', file));
writeFileSync(
  join(out, 'README.md'),
  `# The bundled ASN table

\`${BUNDLED_ASN_TABLE}\` maps IPv4 and IPv6 addresses to the number of the
autonomous system that announces them. It is built from
[${source}](https://www.npmjs.com/package/${PACKAGE}) by
[sapics/ip-location-db](https://github.com/sapics/ip-location-db), made from
RouteViews, NRO (the five RIRs) and DB-IP
([IP to ASN Lite](https://db-ip.com/db/download/ip-to-asn-lite)) data,
licensed CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/). The
licences and credits of that package are in \`ip-location-db/\`, as it ships
them; \`ip-location-db/MODIFICATIONS\` says how it merged its sources.

Changed by selfscan (scripts/build-asn-table.ts): the organisation names are
left out; overlapping ranges are cut so that the earlier one wins; the ranges
are stored as sorted range starts with their AS numbers, AS 0 marking
addresses in no range, brotli-compressed. The AS numbers are as published.
`,
);
const temporary = `${tableFile}.${process.pid}.tmp`;
writeFileSync(temporary, bytes);
renameSync(temporary, tableFile);
const check = decodeCompactTable(bytes);
console.log(
  `build:asn: ${tableFile} from ${source}: ${ipv4Ranges} IPv4 and ${ipv6Ranges} IPv6 ranges as ${check.stats.ipv4Rows} and ${check.stats.ipv6Rows} rows, ${(bytes.length / 2 ** 20).toFixed(2)} MiB, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
