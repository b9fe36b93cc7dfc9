#!/usr/bin/env node
// clang-format (.clang-format, Google style) over the C++ in native/ and
// the tests' kqueue-on-epoll translation:
// `--check` fails on any file it would change (npm run lint); without it,
// rewrites them in place (npm run format). When clang-format is missing it
// installs it as root on Debian or Ubuntu (apt-get), as `npm test` does;
// elsewhere it says what to install.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { ensureCommand } from './ensure-command.mjs';

const files = ['native', 'test/native/kqueue-on-epoll']
  .flatMap((dir) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => join(dir, file)))
  .filter((file) => /\.(h|cc)$/.test(file))
  .sort();
ensureCommand(
  'clang-format',
  'clang-format',
  'apt-get install clang-format (Debian, Ubuntu), dnf install clang-tools-extra (Fedora, RHEL), brew install clang-format (macOS)',
);
const mode = process.argv.includes('--check') ? ['--dry-run', '--Werror'] : ['-i'];
const result = spawnSync('clang-format', [...mode, ...files], { stdio: 'inherit' });
if (result.error) {
  console.error(`clang-format: ${result.error.message} (Debian: apt-get install clang-format)`);
  process.exit(1);
}
process.exit(result.status ?? 1);
