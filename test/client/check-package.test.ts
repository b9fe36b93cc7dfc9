// The zero-dependency package as a CI runner gets it: `npm pack` in
// packages/selfscan-check (its prepack bundles the client), installed from
// the tarball into an empty folder with nothing else, and its bin run
// against the real server.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { cleanEnv, ROOT } from '../helpers/check-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const work = mkdtempSync(join(tmpdir(), 'selfscan-check-pack-'));
let server: TestServer;
let listeners: Listeners;

beforeAll(async () => {
  server = await startTestServer();
  listeners = await listenOn('127.0.0.198', [443], 'HELLO-from-selfscan-check');
});
afterAll(async () => {
  await listeners?.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

it('packs, installs with no dependency, and runs a check', { timeout: 120_000 }, async () => {
  const tarball = execFileSync('npm', ['pack', '--pack-destination', work, '--silent'], { cwd: join(ROOT, 'packages/selfscan-check'), encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop()!;
  const app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'ci-job', private: true }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, tarball)], { cwd: app, encoding: 'utf8' });
  expect(readdirSync(join(app, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['selfscan-check']);

  const child = spawn(
    join(app, 'node_modules/.bin/selfscan-check'),
    ['--server', server.url, '--source', '127.0.0.198', '--expect-open', '443', '--only-open'],
    {
      cwd: app,
      env: cleanEnv(),
    },
  );
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(stdout).toMatch(/^ {2}443\/tcp +https +"HELLO-from-selfscan-check"$/m);
  expect(stdout).toContain('Verdict: PASS: 2 of 2 checks passed (exit 0)');
  expect(code).toBe(0);
});
