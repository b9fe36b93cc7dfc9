// npm run bench:check — what installing the check costs on a CI runner:
// the full `selfscan` package (the service: uWS binaries, ASN data, lmdb,
// the addon) against the zero-dependency `selfscan-check`, each packed
// from this checkout and installed into an empty folder with npm, RUNS
// times each, alternating. Sizes: the tarball, and the installed
// node_modules (bytes on disk, packages). Times: `npm install` wall time
// with npm's cache warm and --prefer-offline, so the registry's latency is
// left out; on a cold runner the download adds to the full package in
// proportion to its size. Then the time of `selfscan-check --help` and
// `selfscan check --help` from the installed packages.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';

const RUNS = 3;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
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
  const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
  const mib = (bytes: number): string => (bytes < 2 ** 20 ? kib(bytes) : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
  const row = (name: string, key: 'full' | 'light', start: string) =>
    `| ${name} | ${kib(tarballs[key])} | ${mib(sizes[key].bytes)} | ${sizes[key].packages} | ${median(times[key]).toFixed(2)} s | ${help[key].toFixed(0)} ms (\`${start}\`) |`;
  const lines = [
    `Each package packed from this checkout and installed into an empty folder with \`npm install --prefer-offline\` (npm's cache warm, so no registry latency), ${RUNS} runs each, alternating; median install time. Installed size: bytes of the files under node_modules. Start: median of 5 runs of the installed command's --help.`,
    '',
    '| package | tarball | installed | packages | install | start |',
    '| --- | --- | --- | --- | --- | --- |',
    row('selfscan (the service; `selfscan check`)', 'full', 'selfscan check --help'),
    row('selfscan-check (zero dependencies)', 'light', 'selfscan-check --help'),
    '',
    `selfscan-check installs ${(sizes.full.bytes / sizes.light.bytes).toFixed(0)}× less on disk, ${(median(times.full) / median(times.light)).toFixed(1)}× faster, with ${sizes.light.packages} package against ${sizes.full.packages}.`,
  ];
  console.log(lines.join('\n'));
  recordSection('check', 'Installing the check: selfscan against selfscan-check (npm run bench:check)', lines);
} finally {
  rmSync(work, { recursive: true, force: true });
}
