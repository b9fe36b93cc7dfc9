#!/usr/bin/env node
// `npm test`: installs the system tools the tests drive (nmap, ip, iptables,
// redis-server and memcached, and the udp scan's real UDP servers: their
// packages' own services are kept from starting; chromium
// for the page's browser tests; xmllint for the check client's JUnit;
// capsh to run the server without CAP_NET_RAW; promtool (prometheus) to
// check the metrics' text format;
// libnetfilter-queue-dev for the path emulator of the netns hosts; objdump,
// the arm64 cross compiler, qemu and the libraries of Debian's arm64 Node
// for the prebuilt binaries)
// and the lint needs (clang-format) when they are missing, lints (npm run
// lint), builds the addon (and its kqueue-on-epoll twin for the tests),
// builds and runs the scanner core's C++ unit tests
// (scripts/native-tests.mjs), type-checks and builds the TypeScript (and
// the bundled ASN table when it is missing or stale), runs
// every vitest project, then the node legs: vitest again under Node 24
// (unit, native, integration) and Node 22 (unit, integration), each fetched
// from the npm registry (scripts/node-legs.mjs), and prints one closing line
// "N passed, N failed" counting all of them; a failure anywhere fails it.
// Extra arguments go to vitest, e.g. `npm test -- --project unit`: with the
// unit project alone, nothing is compiled and nothing needs root (without
// root, a missing clang-format skips only the C++ format check). With extra
// arguments no node leg runs unless SELFSCAN_NODE_LEGS names some, e.g.
// `SELFSCAN_NODE_LEGS=24:unit npm test -- --project unit`;
// SELFSCAN_NODE_LEGS=none runs none after a plain `npm test`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

import { aptInstall, hasCommand } from './ensure-command.mjs';
import { chosenLegs, runLeg } from './node-legs.mjs';
import { runVitest } from './vitest-run.mjs';

/** The values of vitest's `--project NAME` and `--project=NAME` arguments. */
function selectedProjects(args) {
  return args.flatMap((arg, i) => {
    if (arg.startsWith('--project=')) return [arg.slice('--project='.length)];
    return arg === '--project' && i + 1 < args.length ? [args[i + 1]] : [];
  });
}

const vitestArgs = process.argv.slice(2);
const projects = selectedProjects(vitestArgs);
let legs;
try {
  legs = chosenLegs(vitestArgs);
} catch (err) {
  console.error(`test: ${err.message}`);
  process.exit(2);
}
const unitOnly = projects.length > 0 && projects.every((project) => project === 'unit');
const lintTools = { 'clang-format': 'clang-format' };
const tools = unitOnly
  ? lintTools
  : {
      ...lintTools,
      nmap: 'nmap',
      ip: 'iproute2',
      iptables: 'iptables',
      ip6tables: 'iptables',
      'redis-server': 'redis-server',
      memcached: 'memcached',
      // The udp scan's real servers (test/udp, support/udp-services-host.ts).
      dnsmasq: 'dnsmasq-base',
      chronyd: 'chrony',
      snmpd: 'snmpd',
      inetd: 'openbsd-inetd',
      'in.tftpd': 'tftpd-hpa',
      rpcbind: 'rpcbind',
      'coap-server-notls': 'libcoap3-bin',
      chromium: 'chromium',
      xmllint: 'libxml2-utils',
      // capsh runs the server without CAP_NET_RAW (the engine's fallback).
      capsh: 'libcap2-bin',
      // promtool parses GET /metrics as Prometheus does (test/integration/metrics.test.ts).
      promtool: 'prometheus',
      objdump: 'binutils',
      // The linux-arm64 prebuild: cross-compiled, then loaded by Debian's
      // arm64 Node under qemu (test/helpers/arm64-node.ts).
      'aarch64-linux-gnu-g++': 'g++-aarch64-linux-gnu',
      'qemu-aarch64-static': 'qemu-user-static',
    };
const isRoot = process.getuid?.() === 0;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`test: ${command} ${args.join(' ')} failed (${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
}

/**
 * Packages known by a file they install rather than a command: the path
 * emulator's library header, and what Debian's arm64 Node needs to run under
 * qemu (its own package is fetched by test/helpers/arm64-node.ts).
 */
const files = unitOnly
  ? {}
  : {
      '/usr/include/libnetfilter_queue/libnetfilter_queue.h': 'libnetfilter-queue-dev',
      '/usr/lib/aarch64-linux-gnu/libc.so.6': 'libc6:arm64',
      '/usr/lib/aarch64-linux-gnu/libstdc++.so.6': 'libstdc++6:arm64',
      '/usr/lib/aarch64-linux-gnu/libuv.so.1': 'libuv1:arm64',
      '/usr/lib/aarch64-linux-gnu/libssl.so.3': 'libssl3:arm64',
      '/usr/lib/aarch64-linux-gnu/libicuuc.so.72': 'libicu72:arm64',
      '/usr/lib/aarch64-linux-gnu/libnghttp2.so.14': 'libnghttp2-14:arm64',
      '/usr/lib/aarch64-linux-gnu/libcares.so.2': 'libc-ares2:arm64',
      '/usr/lib/aarch64-linux-gnu/libbrotlienc.so.1': 'libbrotli1:arm64',
      '/usr/lib/aarch64-linux-gnu/libz.so.1': 'zlib1g:arm64',
      '/usr/share/nodejs/cjs-module-lexer': 'node-cjs-module-lexer',
      '/usr/share/nodejs/acorn': 'node-acorn',
      '/usr/share/nodejs/undici': 'node-undici',
    };

const missingCommands = Object.keys(tools).filter((command) => !hasCommand(command));
const missingFiles = Object.keys(files).filter((file) => !existsSync(file));
const missing = [...new Set([...missingCommands.map((command) => tools[command]), ...missingFiles.map((file) => files[file])])];
if (missing.length > 0 && isRoot) {
  if (missing.some((name) => name.endsWith(':arm64'))) run('dpkg', ['--add-architecture', 'arm64']);
  aptInstall(missing, 'test');
} else if (missing.length > 0 && !unitOnly) {
  console.error(`test: missing ${missing.join(', ')}; install them or run as root`);
  process.exit(1);
}

if (hasCommand('clang-format')) {
  run('npm', ['run', 'lint']);
} else {
  console.warn('test: clang-format is missing and installing it needs root: SKIPPING the C++ format check (apt-get install clang-format)');
  run('npm', ['run', 'lint:ts']);
}
if (!unitOnly) {
  // Always build the addon from the checked-out sources (incremental), and
  // its test-only twin with the kqueue backend over the kqueue-on-epoll
  // translation, which the native-kqueue project loads.
  run('npx', ['node-gyp', existsSync('build/Makefile') ? 'build' : 'rebuild', '--nodedir=/usr'], {
    env: { ...process.env, npm_config_nodedir: process.env.npm_config_nodedir ?? '/usr' },
  });
  run('node', ['scripts/build-kqueue-translation.mjs']);
}
// The core's C++ unit tests need the addon's compiler: they run wherever it is built.
const native = { passed: 0, failed: 0, ok: true };
if (!unitOnly) {
  const result = spawnSync('node', ['scripts/native-tests.mjs'], { stdio: ['inherit', 'pipe', 'inherit'], encoding: 'utf8' });
  process.stdout.write(result.stdout ?? '');
  const summary = [...(result.stdout ?? '').matchAll(/^native: (\d+) passed, (\d+) failed$/gm)].at(-1);
  if (!summary) {
    console.error(`test: scripts/native-tests.mjs failed before its tests ran (${result.status ?? result.signal})`);
    process.exit(result.status || 1);
  }
  native.passed = Number(summary[1]);
  native.failed = Number(summary[2]);
  native.ok = result.status === 0 && native.failed === 0;
}
run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
run('npx', ['tsc', '-p', 'src/web/browser/tsconfig.json']);
run('npx', ['tsc', '-p', 'tsconfig.build.json']);
run('node', ['scripts/build-web.mjs']);
// The bundled ASN table (dist/asn) the server loads: built once, then kept until the data's version changes.
run('node', ['--import', 'tsx', 'scripts/build-asn-table.ts']);
run('node', ['scripts/build-check.mjs']);

const main = runVitest(vitestArgs, { resultsFile: '.vitest-results.json' });
if (!main.ran) {
  console.error('test: vitest wrote no results');
  process.exit(typeof main.status === 'number' && main.status !== 0 ? main.status : 1);
}
const mainName = `node ${process.versions.node.split('.')[0]} (${projects.length > 0 ? projects.join(', ') : 'every project'})`;
const runs = [{ name: mainName, ...main }, ...legs.map(runLeg)];

console.log('');
for (const { name, passed, failed, skipped, seconds, ok, failures } of runs) {
  console.log(`test: ${name}: ${passed} passed, ${failed} failed, ${skipped} skipped in ${Math.round(seconds)} s${ok ? '' : ' (NOT OK)'}`);
  // Named here as well as in vitest's report, so the end of a long log says which.
  for (const failure of failures) console.log(`  failed: ${failure}`);
}
const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
console.log(`\ntests: ${sum('passed') + native.passed} passed, ${sum('failed') + native.failed} failed, ${sum('skipped')} skipped`);
process.exit(runs.every((run) => run.ok) && native.ok ? 0 : 1);
