// The npm package as a user gets it: packed, installed into an empty folder
// on a machine without a compiler, started with npx, one fast scan of
// loopback run through the API, and the page served with its assets; then
// its linux-arm64 binary loaded by arm64 Node under qemu, scanning.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { afterAll, expect, it } from 'vitest';

import { luaScriptFiles } from '../../src/redis/lua-scripts.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { LOOPBACK_DNS } from '../../support/no-limits.js';
import { arm64Node } from '../helpers/arm64-node.js';
import { expectFloor, libraryFloor } from '../helpers/elf-floor.js';
import { noCompilerPath } from '../helpers/no-compiler-path.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const execFileAsync = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'selfscan-pack-'));
/** Where the tarball is installed (the first test), as a user's project. */
const app = join(work, 'app');
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('installs from the tarball without compiling, and serves a scan', { timeout: 300_000 }, async () => {
  // Packed from a copy: packing rebuilds the addon, which must not replace
  // the one other tests have loaded.
  const source = join(work, 'source');
  const generated = /^(node_modules|build|dist|prebuilds|data|\.git)(\/|$)/;
  cpSync(ROOT, source, { recursive: true, filter: (path) => !generated.test(relative(ROOT, path)) });
  symlinkSync(join(ROOT, 'node_modules'), join(source, 'node_modules'));
  const tarball = execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], { cwd: source, encoding: 'utf8' }).trim().split('\n').pop()!;
  execFileSync('mkdir', ['-p', app]);
  // allowScripts runs selfscan's own install script (node-gyp-build), as a
  // user who approves it gets: it must find the prebuilt binary and compile nothing.
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'trial', private: true, allowScripts: { selfscan: true } }));
  const env = { ...process.env, PATH: noCompilerPath(), npm_config_nodedir: '' };
  expect(() => execFileSync('sh', ['-c', 'command -v cc || command -v g++ || command -v make'], { env })).toThrow();
  // npm, the install script and the server run on the Node running the tests.
  expect(execFileSync('node', ['--version'], { env, encoding: 'utf8' }).trim()).toBe(process.version);

  const log = execFileSync('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts', join(work, tarball)], {
    cwd: app,
    env,
    encoding: 'utf8',
  });
  expect(log).toContain('node-gyp-build'); // the install script ran
  expect(log).not.toMatch(/gyp info spawn|make: /);
  // Tagged glibc (a musl host builds from source instead), and needing
  // only glibc 2.17 and libgcc_s of the host: its C++ runtime is linked in.
  const prebuild = join(app, 'node_modules/selfscan/prebuilds/linux-x64/selfscan.glibc.node');
  expect(existsSync(prebuild)).toBe(true);
  expectFloor(libraryFloor(prebuild));
  expect(existsSync(join(app, 'node_modules/selfscan/build'))).toBe(false);
  // A Mac or BSD builds the kqueue backend from these sources; the tests'
  // kqueue-on-epoll translation never ships.
  for (const backend of ['poller_epoll', 'poller_kqueue', 'poller_poll']) {
    expect(existsSync(join(app, `node_modules/selfscan/native/core/${backend}.cc`))).toBe(true);
  }
  expect(existsSync(join(app, 'node_modules/selfscan/test'))).toBe(false);
  // A cluster node reads its Lua scripts beside the compiled code.
  for (const script of luaScriptFiles()) expect(existsSync(join(app, `node_modules/selfscan/dist/redis/lua/${script}`))).toBe(true);
  // The bundled ASN table ships with its data's licences; the CSV package it is built from does not.
  expect(existsSync(join(app, 'node_modules/selfscan/dist/asn/asn-table.bin.br'))).toBe(true);
  expect(existsSync(join(app, 'node_modules/selfscan/dist/asn/ip-location-db/DBIP-LICENSE'))).toBe(true);
  expect(existsSync(join(app, 'node_modules/@ip-location-db'))).toBe(false);

  expect(execFileSync('npx', ['selfscan', '--version'], { cwd: app, env, encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);

  const listeners = await listenOn('127.0.0.95', [8443], 'HELLO-from-package');
  const config = join(work, 'config.json');
  writeFileSync(config, JSON.stringify({ dns: LOOPBACK_DNS }));
  // The installed bin itself, not through npx: killing npx would leave the server running.
  const server = spawn(
    join(app, 'node_modules/.bin/selfscan'),
    ['serve', '--host', '127.0.0.1', '--port', '0', '--allow-private-targets', '--data-dir', join(work, 'data'), '--config', config],
    { cwd: app, env },
  );
  try {
    let output = '';
    server.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    let port: number | undefined;
    while (port === undefined) {
      if (server.exitCode !== null) throw new Error(`server exited: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
      port = output
        .split('\n')
        .map((line) => /"event":"listening".*"port":(\d+)/.exec(line)?.[1])
        .find(Boolean) as number | undefined;
    }
    const fetch = callerFetch('127.0.0.95');
    expect((await fetch(`http://127.0.0.1:${port}/v1/fast`, { method: 'POST' })).status).toBe(200);
    const result = await pollUntilFinal(fetch, `http://127.0.0.1:${port}/v1/fast`);
    expect(result).toMatchObject({ status: 'complete' });
    expect(result.ports_open).toContainEqual(expect.objectContaining({ port: 8443, state: 'open', service: 'pcsync-https', banner: 'HELLO-from-package' }));
    // the page and its built assets ship in the package
    const page = await (await fetch(`http://127.0.0.1:${port}/`, { headers: { accept: 'text/html' } })).text();
    const script = /src="(\/assets\/app-[\w-]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`http://127.0.0.1:${port}${script}`)).status).toBe(200);
  } finally {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    if (server.exitCode === null && server.kill('SIGKILL')) await exited;
    await listeners.close();
  }
});

it('loads its linux-arm64 prebuild in arm64 Node (under qemu) and scans loopback exactly', { timeout: 300_000 }, async () => {
  const prebuild = join(app, 'node_modules/selfscan/prebuilds/linux-arm64/selfscan.glibc.node');
  expect(existsSync(prebuild)).toBe(true);
  expect(execFileSync('file', ['-b', prebuild], { encoding: 'utf8' })).toMatch(/ELF 64-bit LSB shared object, ARM aarch64/);
  expectFloor(libraryFloor(prebuild));

  const listeners = await listenOn('127.0.0.96', [2222, 8443], 'HELLO-from-arm64');
  try {
    const script = join(app, 'arm64-scan.mjs');
    writeFileSync(
      script,
      `import { createScanner } from 'selfscan';
       const ports = process.argv.slice(3).map(Number);
       const summary = await createScanner().scan({ ip: process.argv[2], ports }).done;
       console.log(JSON.stringify({ arch: process.arch, status: summary.status, open: summary.open.map((p) => [p.port, p.banner]), closed: summary.closed, filtered: summary.filtered.length }));`,
    );
    const node = arm64Node();
    const ports = [2222, 8443, ...Array.from({ length: 98 }, (_, i) => 30000 + i)];
    const [command, args] = node.command([script, '127.0.0.96', ...ports.map(String)]);
    const { stdout } = await execFileAsync(command, args, { cwd: app, env: node.env(process.env), encoding: 'utf8' });
    expect(JSON.parse(stdout.trim().split('\n').pop()!)).toEqual({
      arch: 'arm64',
      status: 'complete',
      open: [
        [2222, 'HELLO-from-arm64'],
        [8443, 'HELLO-from-arm64'],
      ],
      closed: 98,
      filtered: 0,
    });
  } finally {
    await listeners.close();
  }
});
