#!/usr/bin/env node
// The zero-dependency package selfscan-check: src/client/ bundled by
// esbuild into one file, packages/selfscan-check/selfscan-check.js, that
// needs nothing but Node (the client imports only node: built-ins and,
// as types, the wire contract). Its version follows selfscan's.
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'packages/selfscan-check');

const bundled = await build({
  entryPoints: [join(root, 'src/client/selfscan-check.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: ['node20'],
  outfile: join(out, 'selfscan-check.js'),
  metafile: true,
  logLevel: 'warning',
});
chmodSync(join(out, 'selfscan-check.js'), 0o755);
const imports = Object.values(bundled.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
const foreign = imports.filter((path) => !path.startsWith('node:'));
if (foreign.length > 0) throw new Error(`selfscan-check must import only node: built-ins, not ${foreign.join(', ')}`);

const manifestPath = join(out, 'package.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
if (manifest.version !== version) writeFileSync(manifestPath, `${JSON.stringify({ ...manifest, version }, null, 2)}\n`);
console.log(`check: packages/selfscan-check/selfscan-check.js ${version}`);
