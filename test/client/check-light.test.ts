// `selfscan check` and `selfscan --help` load no server code: run as `selfscan check` from the
// built CLI with a hook that records every module and refuses the server's
// packages (uWS, lmdb, zod…), it loads only the CLI, the client and the
// zod-free modules of the contract (port list, severity levels, SSE reader); the selfscan-check bundle imports only node:
// built-ins, and its package has no dependencies.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { CHECK_BUNDLE, CLI, cleanEnv, ROOT } from '../helpers/check-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HOOK = new URL('./children/record-modules.mjs', import.meta.url).href;
const work = mkdtempSync(join(tmpdir(), 'selfscan-light-'));
let server: TestServer;
let listeners: Listeners;

beforeAll(async () => {
  server = await startTestServer();
  listeners = await listenOn('127.0.0.175', [22], 'SSH-2.0-light');
});
afterAll(async () => {
  await listeners?.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs the built CLI with ARGS under the recording hook; the modules it loaded, relative to the repository. */
async function recorded(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string; modules: string[] }> {
  const log = join(work, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const child = spawn(process.execPath, ['--import', HOOK, CLI, ...args], { env: cleanEnv({ SELFSCAN_MODULE_LOG: log }) });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {}
  const modules = [...new Set(text.split('\n').filter(Boolean))].map((url) => (url.startsWith(`file://${ROOT}`) ? url.slice(`file://${ROOT}`.length) : url));
  return { status, stdout, stderr, modules };
}

const ALLOWED =
  /^(node:[\w/]+|dist\/cli\.js|dist\/client\/[\w-]+\.js|dist\/api\/(region-views|regions-asked|scan-ports|severity-levels|sse-parser|version)\.js)$/;

it('`selfscan check` runs a whole check loading only the CLI, the client and the port list', async () => {
  const run = await recorded(['check', '--server', server.url, '--source', '127.0.0.175', '--no-progress', '--expect-open', '22', '--timeout', '20']);
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('PASS  port 22 is open');
  expect(run.status).toBe(0);
  expect(run.modules).toContain('dist/client/run-check.js');
  expect(run.modules.filter((module) => !ALLOWED.test(module))).toEqual([]);
});

it('`selfscan check --help` too', async () => {
  const run = await recorded(['check', '--help']);
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('Exit codes:');
  expect(run.modules.filter((module) => !ALLOWED.test(module))).toEqual([]);
});

it("`selfscan --help` lists serve's options loading only the help and the table of serve's flags", async () => {
  const run = await recorded(['--help']);
  expect(run.status).toBe(0);
  for (const flag of ['--host', '--port', '--data-dir', '--config', '--allow-private-targets', '--redis']) expect(run.stdout).toContain(flag);
  expect(run.modules).toContain('dist/config/serve-flags.js');
  const helpOnly = /^(node:[\w/]+|dist\/cli\.js|dist\/api\/version\.js|dist\/commands\/help\.js|dist\/config\/serve-flags\.js)$/;
  expect(run.modules.filter((module) => !helpOnly.test(module))).toEqual([]);
});

it('the hook is real: `selfscan serve --help` loads server code, and fails under it', async () => {
  const run = await recorded(['serve', '--help']);
  expect(run.status).not.toBe(0);
  expect(run.stderr).toMatch(/server package loaded: (zod|pino|lmdb|@trufflesuite\/uws-js-unofficial)/);
});

it('the selfscan-check bundle imports only node: built-ins, and its package has no dependencies', () => {
  const bundle = readFileSync(CHECK_BUNDLE, 'utf8');
  const imports = [...bundle.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1]);
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((name) => !name!.startsWith('node:'))).toEqual([]);
  expect(bundle).not.toMatch(/\brequire\(|import\(/);
  const manifest = JSON.parse(readFileSync(join(ROOT, 'packages/selfscan-check/package.json'), 'utf8')) as Record<string, unknown>;
  expect(manifest).not.toHaveProperty('dependencies');
  expect(manifest).not.toHaveProperty('peerDependencies');
  expect(manifest).not.toHaveProperty('optionalDependencies');
  expect(manifest.bin).toEqual({ 'selfscan-check': './selfscan-check.js' });
  expect(manifest.version).toBe((JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
});
