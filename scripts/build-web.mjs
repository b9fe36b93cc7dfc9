#!/usr/bin/env node
// The page's assets (src/web/browser) built for browsers: the script
// bundled and minified by esbuild (one file: the page loads no module
// graph), the stylesheet minified, the icon copied; each named by a hash of
// its content, so it can be cached for a year. dist/public/manifest.json
// maps each logical name (app.js, style.css, icon.svg) to its file.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = join(root, 'src/web/browser');
const out = join(root, 'dist/public');

const bundled = await build({
  entryPoints: [join(source, 'app.ts'), join(source, 'style.css')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  write: false,
  outdir: out,
  logLevel: 'warning',
});

const files = [
  ...bundled.outputFiles.map((file) => ({ name: basename(file.path), bytes: Buffer.from(file.contents) })),
  { name: 'icon.svg', bytes: readFileSync(join(source, 'icon.svg')) },
];

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const manifest = {};
for (const { name, bytes } of files) {
  const hash = createHash('sha256').update(bytes).digest('base64url').slice(0, 12);
  const ext = extname(name);
  const hashed = `${basename(name, ext)}-${hash}${ext}`;
  writeFileSync(join(out, hashed), bytes);
  manifest[name] = hashed;
}
writeFileSync(join(out, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
console.log(`web: ${Object.values(manifest).join(', ')}`);
