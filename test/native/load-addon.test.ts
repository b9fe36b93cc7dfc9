// A native binary that is missing or does not load says which, why, and how
// to build one, instead of ending the process with a bare linker message.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, expect, it } from 'vitest';

import { loadAddon } from '../../src/native/load-addon.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'selfscan-load-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function packageRoot(name: string): string {
  const root = join(work, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: `selfscan-${name}` }));
  return root;
}

it('names the prebuild that does not load, the reason, and the way to build one', () => {
  // This checkout's own addon, made to need a glibc no host has, as a
  // prebuild made for another distribution would.
  const root = packageRoot('broken');
  const prebuilds = join(root, 'prebuilds', `${process.platform}-${process.arch}`);
  mkdirSync(prebuilds, { recursive: true });
  const binary = join(prebuilds, 'selfscan.node');
  const image = readFileSync(join(ROOT, 'build/Release/selfscan.node'));
  const at = image.indexOf('GLIBC_2.1');
  expect(at).toBeGreaterThan(0);
  image.write('9', at + 'GLIBC_'.length);
  writeFileSync(binary, image);
  expect(() => loadAddon(root)).toThrow(
    new RegExp(
      `^selfscan's native scanner ${binary} did not load: .*version .GLIBC_9\\.1\\d*. not found.*; ` +
        'build one for this host from source: npm rebuild selfscan --build-from-source \\(needs python3, make and a C\\+\\+17 compiler\\)$',
    ),
  );
});

it('says when there is no binary for the platform at all', () => {
  expect(() => loadAddon(packageRoot('empty'))).toThrow(
    new RegExp(
      `^selfscan has no native scanner for ${process.platform}-${process.arch}: No native build was found for platform=.*; build one for this host from source: npm rebuild selfscan --build-from-source`,
    ),
  );
});

it('loads the addon of this checkout', () => {
  const addon = loadAddon(ROOT) as { startScan?: unknown };
  expect(typeof addon.startScan).toBe('function');
});
