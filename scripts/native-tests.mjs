#!/usr/bin/env node
// `npm run test:native-core`: builds the scanner core's C++ unit tests
// (native/test/, against the pure sources of native/core/ and its readiness
// backends, which are tried on loopback sockets; no Node headers) into
// build/native-tests/selfscan-core-tests and runs them. The kqueue backend
// is built over the kqueue-on-epoll translation of test/native/. Only what changed is compiled again (an object is stale when
// its source, any header or this script is newer), objects in parallel.
// Built with AddressSanitizer and UBSan, so a stray read or an overflow in
// the core fails the run, not only a wrong number. Arguments go to the
// binary (`-v` lists each test with its time; other words select tests by
// name). Its last line is "native: N passed, N failed"; scripts/test.mjs
// reads it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The core's pure logic: what the tests exercise, and nothing that opens a socket.
const coreSources = [
  'rtt_estimator',
  'pacer',
  'canary_ledger',
  'loss_history',
  'clean_stretch',
  'path_loss',
  'filtered_rule',
  'target_state',
  'siphash',
  'packet_codec',
].map((name) => `native/core/${name}.cc`);
// The readiness backends this platform has; on Linux the kqueue backend too,
// over the kqueue-on-epoll translation (test/native/kqueue-on-epoll stands
// in for the BSDs' sys/event.h).
const kqueueTranslation = 'test/native/kqueue-on-epoll';
const linux = process.platform === 'linux';
const pollerSources = [
  ...['connect_outcome', 'wake_pipe', 'poller', 'poller_poll', 'poller_kqueue', ...(linux ? ['poller_epoll'] : [])].map((name) => `native/core/${name}.cc`),
  ...(linux ? [`${kqueueTranslation}/kqueue_on_epoll.cc`] : []),
];
const defines = linux ? ['-DSELFSCAN_HAVE_EPOLL', '-DSELFSCAN_HAVE_KQUEUE', `-I${kqueueTranslation}`] : ['-DSELFSCAN_HAVE_KQUEUE'];
const testSources = readdirSync('native/test')
  .filter((file) => file.endsWith('.cc'))
  .sort()
  .map((file) => `native/test/${file}`);
const headers = ['native/core', 'native/test', `${kqueueTranslation}/sys`].flatMap((dir) =>
  readdirSync(dir)
    .filter((file) => file.endsWith('.h'))
    .map((file) => join(dir, file)),
);
const outDir = 'build/native-tests';
const binary = join(outDir, 'selfscan-core-tests');
const flags = ['-std=c++17', '-O2', '-g', '-Wall', '-Wextra', '-Werror', '-fsanitize=address,undefined', '-fno-sanitize-recover=all'];

const mtime = (file) => (existsSync(file) ? statSync(file).mtimeMs : 0);
const newestInput = Math.max(mtime(fileURLToPath(import.meta.url)), ...headers.map(mtime));

function compile(source, object) {
  return new Promise((resolve) => {
    const child = spawn('g++', [...flags, ...defines, '-c', source, '-o', object], { stdio: 'inherit' });
    child.on('error', (error) => resolve(`${source}: ${error.message}`));
    child.on('exit', (code, signal) => resolve(code === 0 ? null : `${source}: g++ failed (${code ?? signal})`));
  });
}

mkdirSync(outDir, { recursive: true });
const objects = [...coreSources, ...pollerSources, ...testSources].map((source) => ({
  source,
  object: join(outDir, `${basename(source, '.cc')}.o`),
}));
const stale = objects.filter(({ source, object }) => mtime(object) < Math.max(mtime(source), newestInput));
if (stale.length > 0) console.log(`native-tests: compiling ${stale.length} of ${objects.length} sources`);
const errors = [];
let next = 0;
await Promise.all(
  Array.from({ length: Math.min(availableParallelism(), stale.length) }, async () => {
    while (next < stale.length) {
      const { source, object } = stale[next++];
      const error = await compile(source, object);
      if (error) errors.push(error);
    }
  }),
);
if (errors.length > 0) {
  console.error(`native-tests: ${errors.join('; ')}`);
  process.exit(1);
}
if (mtime(binary) < Math.max(...objects.map(({ object }) => mtime(object)))) {
  const link = spawnSync('g++', [...flags, ...objects.map(({ object }) => object), '-o', binary], { stdio: 'inherit' });
  if (link.status !== 0) {
    console.error(`native-tests: linking ${binary} failed (${link.status ?? link.signal ?? link.error?.message})`);
    process.exit(1);
  }
}

const run = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit' });
process.exit(run.status ?? 1);
