// npm run bench:check — what installing the check costs on a CI runner:
// the full `selfscan` package (the service: uWS binaries, ASN data, lmdb,
// the addon) against the zero-dependency `selfscan-check`, each packed
// from this checkout and installed into an empty folder with npm, RUNS
// times each, alternating. Sizes: the tarball, and the installed
// node_modules (bytes on disk, packages). Times: `npm install` wall time
// with npm's cache warm and --prefer-offline, so the registry's latency is
// left out; on a cold runner the download adds to the full package in
// proportion to its size. Then the time of `selfscan-check --help` and
// `selfscan check --help` from the installed packages, and the service's
// start: `selfscan serve` on a free loopback port until it logs that it
// listens (its ASN table loaded), first in an empty data dir, then again.
// `--baseline LABEL` keeps the full package's row of the section as it
// stands, under LABEL, beside the new one (a before/after pair).
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';

const RUNS = 3;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RESULTS = join(ROOT, 'bench/RESULTS.md');
const FULL_ROW = /^\| selfscan \(the service[^\n]*$/m;
const { values } = parseArgs({ options: { baseline: { type: 'string' } } });
/** The full package's row as it stands, relabelled, when --baseline asks to keep it. */
const baselineRow = ((): string | null => {
  if (values.baseline === undefined) return null;
  const row = readFileSync(RESULTS, 'utf8').match(FULL_ROW)?.[0];
  if (row === undefined) throw new Error('--baseline: bench/RESULTS.md has no selfscan row to keep');
  return row.replace(/^\| [^|]*\|/, `| selfscan, ${values.baseline} |`);
})();
const work = mkdtempSync(join(tmpdir(), 'selfscan-bench-check-'));

/** Bytes on disk under `path` and the number of package.json files below node_modules/ (packages). */
function measure(path: string): { bytes: number; packages: number } {
  let bytes = 0;
  let packages = 0;
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(full);
      else {
        bytes += statSync(full).size;
        if (entry.name === 'package.json' && /node_modules\/(@[^/]+\/)?[^/]+$/.test(dir)) packages++;
      }
    }
  };
  walk(path);
  return { bytes, packages };
}

function pack(cwd: string): string {
  const name = execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], { cwd, encoding: 'utf8' }).trim().split('\n').pop()!;
  return join(work, name);
}

/** Installs `tarball` into an empty folder; the seconds it took and the folder. */
function install(tarball: string, run: number, allowScripts: Record<string, boolean>): { seconds: number; app: string } {
  const app = join(work, `app-${relative(work, tarball).replace(/\W/g, '-')}-${run}`);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'bench', private: true, allowScripts }));
  const started = performance.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], { cwd: app, stdio: 'ignore' });
  return { seconds: (performance.now() - started) / 1000, app };
}

function helpMs(command: string, args: string[], cwd: string): number {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    execFileSync(command, args, { cwd, stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  return median(times);
}

/** Milliseconds from spawning `selfscan serve` until it logs `listening`; then stops it. */
function serveMs(app: string, dataDir: string): Promise<number> {
  const bin = join(app, 'node_modules/.bin/selfscan');
  const started = performance.now();
  const child = spawn(bin, ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir], {
    cwd: app,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SELFSCAN_SCANNER_ENGINE: 'connect' },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    let listenedMs: number | undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk;
    });
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
      if (listenedMs === undefined && out.includes('"event":"listening"')) {
        listenedMs = performance.now() - started;
        child.kill('SIGTERM');
      }
    });
    child.once('exit', (code) => {
      if (listenedMs !== undefined) resolve(listenedMs);
      else reject(new Error(`selfscan serve exited (${code}) before listening: ${err}${out}`));
    });
  });
}

/** The service's start: the first in a fresh data dir (cold), then the median of 4 more in it. */
async function serveStart(app: string): Promise<{ firstMs: number; laterMs: number }> {
  const dataDir = join(app, 'serve-data');
  const firstMs = await serveMs(app, dataDir);
  const later: number[] = [];
  for (let i = 0; i < 4; i++) later.push(await serveMs(app, dataDir));
  return { firstMs, laterMs: median(later) };
}

try {
  // The full package is packed from a copy, as the package test does: its prepack rebuilds the addon.
  const source = join(work, 'source');
  const generated = /^(node_modules|build|dist|prebuilds|data|\.git)(\/|$)|(^|\/)\.check-reports-/;
  cpSync(ROOT, source, { recursive: true, filter: (path) => !generated.test(relative(ROOT, path)) });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  console.log('packing selfscan (prebuildify + build)…');
  const full = pack(source);
  console.log('packing selfscan-check…');
  const light = pack(join(source, 'packages/selfscan-check'));

  const times: Record<'full' | 'light', number[]> = { full: [], light: [] };
  let apps: Record<'full' | 'light', string> = { full: '', light: '' };
  // One untimed install of each first, so npm's cache holds every package.
  install(full, -1, { selfscan: true });
  install(light, -1, {});
  for (let run = 0; run < RUNS; run++) {
    const f = install(full, run, { selfscan: true });
    const l = install(light, run, {});
    times.full.push(f.seconds);
    times.light.push(l.seconds);
    apps = { full: f.app, light: l.app };
    console.log(`run ${run + 1}: selfscan ${f.seconds.toFixed(2)} s, selfscan-check ${l.seconds.toFixed(2)} s`);
  }
  const sizes = { full: measure(join(apps.full, 'node_modules')), light: measure(join(apps.light, 'node_modules')) };
  const tarballs = { full: statSync(full).size, light: statSync(light).size };
  const help = {
    full: helpMs(join(apps.full, 'node_modules/.bin/selfscan'), ['check', '--help'], apps.full),
    light: helpMs(join(apps.light, 'node_modules/.bin/selfscan-check'), ['--help'], apps.light),
  };
  const serve = await serveStart(apps.full);
  const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
  const mib = (bytes: number): string => (bytes < 2 ** 20 ? kib(bytes) : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
  const row = (name: string, key: 'full' | 'light', start: string) =>
    `| ${name} | ${kib(tarballs[key])} | ${mib(sizes[key].bytes)} | ${sizes[key].packages} | ${median(times[key]).toFixed(2)} s | ${help[key].toFixed(0)} ms (\`${start}\`) |`;
  const lines = [
    `Each package packed from this checkout and installed into an empty folder with \`npm install --prefer-offline\` (npm's cache warm, so no registry latency), ${RUNS} runs each, alternating; median install time. Installed size: bytes of the files under node_modules. Start: median of 5 runs of the installed command's --help. Service start: \`selfscan serve --host 127.0.0.1 --port 0\` (connect engine) from spawn until it logs that it listens, the first time in an empty data dir, then the median of 4 more starts on that data dir.`,
    '',
    '| package | tarball | installed | packages | install | start | service start (first, later) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...(baselineRow === null ? [] : [baselineRow]),
    `${row('selfscan (the service; `selfscan check`)', 'full', 'selfscan check --help')} ${serve.firstMs.toFixed(0)} ms, ${serve.laterMs.toFixed(0)} ms |`,
    `${row('selfscan-check (zero dependencies)', 'light', 'selfscan-check --help')} — |`,
    '',
    `selfscan-check installs ${(sizes.full.bytes / sizes.light.bytes).toFixed(0)}× less on disk, ${(median(times.full) / median(times.light)).toFixed(1)}× faster, with ${sizes.light.packages} package against ${sizes.full.packages}.`,
  ];
  console.log(lines.join('\n'));
  recordSection('check', 'Installing the check: selfscan against selfscan-check (npm run bench:check)', lines);
} finally {
  rmSync(work, { recursive: true, force: true });
}
