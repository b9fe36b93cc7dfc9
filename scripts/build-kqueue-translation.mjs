#!/usr/bin/env node
// Tests only: builds the addon a second time with the kqueue backend on
// Linux, over the kqueue-on-epoll translation in test/native/kqueue-on-epoll
// (binding.gyp's kqueue_on_epoll), into build/kqueue-on-epoll/build/Release.
// node-gyp always builds into ./build, so it runs in a directory of links
// to the sources. The native tests load this build with
// SELFSCAN_PREBUILD=build/kqueue-on-epoll (vitest.config.ts); the shipped
// addon never contains it. Incremental, like the main build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve('.');
const dir = join(root, 'build', 'kqueue-on-epoll');
mkdirSync(dir, { recursive: true });
for (const entry of ['binding.gyp', 'package.json', 'native', 'test', 'node_modules']) {
  if (!existsSync(join(dir, entry))) symlinkSync(join(root, entry), join(dir, entry));
}
const configured = existsSync(join(dir, 'build', 'Makefile'));
const args = configured ? ['node-gyp', 'build'] : ['node-gyp', 'rebuild', '--', '-Dkqueue_on_epoll=1'];
const result = spawnSync('npx', args, {
  cwd: dir,
  stdio: 'inherit',
  env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? '/usr' },
});
process.exit(result.status ?? 1);
