#!/usr/bin/env node
// clang-format (.clang-format, Google style) over the C++ in native/ and
// the tests' kqueue-on-epoll translation:
// `--check` fails on any file it would change (npm run lint); without it,
// rewrites them in place (npm run format).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const files = ['native', 'test/native/kqueue-on-epoll']
  .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)))
  .filter((file) => /\.(h|cc)$/.test(file))
  .sort();
const mode = process.argv.includes('--check') ? ['--dry-run', '--Werror'] : ['-i'];
const result = spawnSync('clang-format', [...mode, ...files], { stdio: 'inherit' });
if (result.error) {
  console.error(`clang-format: ${result.error.message} (Debian: apt-get install clang-format)`);
  process.exit(1);
}
process.exit(result.status ?? 1);
