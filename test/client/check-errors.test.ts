// Every way `selfscan check` cannot decide ends with exit 2: the server
// down, silent past --timeout, an HTTP error, 429 (and --wait-rate-limit
// waiting it out once), a failed scan, an incomplete one (unless
// --allow-incomplete). The real server; where a scan must fail or end
// incomplete on cue, its scanner is the test's stand-in.
import { createServer, type Server, type Socket } from 'node:net';

import { afterAll, afterEach, describe, expect, it } from 'vitest';

import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { runCheck } from '../helpers/check-cli.js';
import { eventually } from '../helpers/eventually.js';
import { FakeScanner, openPort } from '../helpers/fake-scanner.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(...args: Parameters<typeof startTestServer>): Promise<TestServer> {
  const started = await startTestServer(...args);
  cleanups.push(() => started.close());
  return started;
}

async function listeners(address: string, ports: number[], banner: string | null = null): Promise<Listeners> {
  const opened = await listenOn(address, ports, banner);
  cleanups.push(() => opened.close());
  return opened;
}

describe('the server cannot be reached', () => {
  it('nothing listens: exit 2 at once', async () => {
    const run = await runCheck(['--server', 'http://127.0.0.1:9', '--no-progress', '--expect-open', '22', '--timeout', '10']);
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/Error: cannot reach http:\/\/127\.0\.0\.1:9: connect ECONNREFUSED/);
    expect(run.stdout).toContain('SKIP  port 22: not decided (no scan result)');
    expect(run.ms).toBeLessThan(5_000);
  });

  it('it accepts the connection and never answers: exit 2 within --timeout', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });
    const { port } = silent.address() as { port: number };
    const run = await runCheck(['--server', `http://127.0.0.1:${port}`, '--no-progress', '--timeout', '1.5']);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(`Error: no result from http://127.0.0.1:${port} within 1.5 s (--timeout)`);
    expect(run.ms).toBeGreaterThanOrEqual(1_400);
    expect(run.ms).toBeLessThan(4_000);
  });
});

it('an HTTP error (422 invalid_target from a server that refuses private targets): exit 2', async () => {
  const s = await server({ allowPrivateTargets: false });
  const run = await runCheck(['--server', s.url, '--source', '127.0.0.160', '--no-progress', '--expect-open', '22']);
  expect(run.code).toBe(2);
  expect(run.stdout).toMatch(/Error: HTTP 422 Unprocessable Entity from GET \/v2\/fast: invalid_target: /);
  expect(run.stdout).toContain('Verdict: ERROR: could not decide (exit 2)');
});

describe('rate limited (429)', () => {
  it('exit 2; with --wait-rate-limit it waits out Retry-After once, says so, and passes; a Retry-After past --timeout is exit 2', async () => {
    const s = await server({ limits: { ...NO_LIMITS, edge: { max: 1, windowSeconds: 2 } } });
    await listeners('127.0.0.161', [22], 'SSH-2.0-ratelimit');
    const args = ['--server', s.url, '--source', '127.0.0.161', '--no-progress', '--expect-open', '22'];
    expect((await runCheck(args)).code).toBe(0);

    const limited = await runCheck(args);
    expect(limited.code).toBe(2);
    expect(limited.stdout).toMatch(/Error: rate limited by http:\/\/127\.0\.0\.1:\d+: more than 1 requests in 2 s/);

    const waited = await runCheck([...args, '--wait-rate-limit']);
    expect(waited.stderr).toMatch(/^selfscan-check: rate limited: waiting [12] s \(Retry-After\), as --wait-rate-limit asks$/m);
    expect(waited.code).toBe(0);
    expect(waited.ms).toBeGreaterThanOrEqual(900);

    const tooLong = await runCheck([...args, '--wait-rate-limit', '--timeout', '0.5']);
    expect(tooLong.code).toBe(2);
    expect(tooLong.stdout).toMatch(/Retry-After [12] s is past the --timeout/);
  });
});

describe('scans that do not end complete', () => {
  /** A server whose scans end as the test says; the check runs from `caller`. */
  async function serverWithStandIn(): Promise<{ url: string; scanner: FakeScanner }> {
    const scanner = new FakeScanner();
    const s = await server({}, { scanner });
    return { url: s.url, scanner };
  }

  it('failed: exit 2, every check undecided', async () => {
    const { url, scanner } = await serverWithStandIn();
    const running = runCheck(['--server', url, '--source', '127.0.0.162', '--no-progress', '--expect-closed', '22']);
    await eventually(() => scanner.scans.length === 1, 10_000, 'the scan to start');
    scanner.scans[0]!.fail(Object.assign(new Error('connect ENETUNREACH'), { code: 'ENETUNREACH' }));
    const run = await running;
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Error: the scan failed: unreachable');
    expect(run.stdout).toContain('SKIP  port 22: not decided (the scan failed)');
  });

  /** Runs a check while the stand-in finds 22 open, then ends the scan incomplete. */
  async function incomplete(caller: string, args: string[]) {
    const { url, scanner } = await serverWithStandIn();
    const running = runCheck(['--server', url, '--source', caller, '--no-progress', ...args]);
    await eventually(() => scanner.scans.length === 1, 10_000, 'the scan to start');
    scanner.scans[0]!.chunk({ index: 0, total: 4, open: [openPort(22, 'SSH-2.0-partial')] });
    scanner.scans[0]!.complete('incomplete');
    return running;
  }

  it('incomplete: exit 2, even when what it found breaks an expectation (an error outranks findings)', async () => {
    const run = await incomplete('127.0.0.163', ['--expect-closed', '22', '--expect-open', '80']);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('FAIL  port 22 is open, expected closed or filtered');
    expect(run.stdout).toContain('Error: the scan ended incomplete');
  });

  it('incomplete with --allow-incomplete: what it found open counts, the rest is skipped (exit 0)', async () => {
    const run = await incomplete('127.0.0.164', ['--allow-incomplete', '--expect-open', '22', '--expect-closed', '80', '--only-open']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('PASS  port 22 is open');
    expect(run.stdout).toContain('SKIP  port 80: not decided (the scan was incomplete)');
    expect(run.stdout).toContain('SKIP  other open ports: not decided (the scan was incomplete)');
    expect(run.stdout).toContain('Verdict: PASS: 1 of 3 checks passed, 2 undecided (exit 0)');
  });

  it('incomplete with --allow-incomplete: an open port expected closed fails (exit 1)', async () => {
    const run = await incomplete('127.0.0.165', ['--allow-incomplete', '--expect-closed', '22']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL  port 22 is open, expected closed or filtered');
  });
});
