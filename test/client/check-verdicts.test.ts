// `selfscan check` against the real server and real listeners: the built
// executable spawned, each run calling from its own loopback address, so
// each is its own scan target. A pass, each kind of violation, each usage
// error, and the policy file with flags overriding it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { cleanEnv, runCheck } from '../helpers/check-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let listeners: Listeners[];
const work = mkdtempSync(join(tmpdir(), 'selfscan-check-'));
// Port 22 speaks first with a banner, 8080 is silent; the others of the fast scan are closed.
const HOST = '127.0.0.150';

beforeAll(async () => {
  server = await startTestServer();
  listeners = [await listenOn(HOST, [22], 'SSH-2.0-checktest'), await listenOn(HOST, [8080])];
});
afterAll(async () => {
  for (const l of listeners ?? []) await l.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const check = (...args: string[]) => runCheck(['--server', server.url, '--source', HOST, '--no-progress', ...args]);

describe('verdicts', () => {
  it('passes (exit 0) when every expectation holds, and lists the open ports with service and banner', async () => {
    const run = await check('--expect-open', '22,8080', '--expect-closed', '3306', '--expect-closed', '5432', '--only-open');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}22\/tcp +ssh +"SSH-2\.0-checktest"$/m);
    expect(run.stdout).toMatch(/^ {2}8080\/tcp +http-alt$/m);
    for (const line of ['PASS  port 22 is open', 'PASS  port 8080 is open', 'PASS  port 3306 is closed', 'PASS  port 5432 is closed'])
      expect(run.stdout).toContain(line);
    expect(run.stdout).toContain('PASS  no port is open beyond those expected open');
    expect(run.stdout).toContain('Verdict: PASS: 5 of 5 checks passed (exit 0)');
  });

  it('passes with no expectations at all: the scan alone', async () => {
    const run = await check();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Verdict: PASS: nothing was expected');
  });

  it('fails (exit 1) when a port expected open is closed', async () => {
    const run = await check('--expect-open', '22,443');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL  port 443 is closed, expected open');
    expect(run.stdout).toContain('PASS  port 22 is open');
    expect(run.stdout).toContain('Verdict: FAIL: 1 of 2 checks failed (exit 1)');
  });

  it('fails (exit 1) when a port expected closed is open', async () => {
    const run = await check('--expect-closed', '8080');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL  port 8080 is open, expected closed or filtered');
  });

  it('fails (exit 1) with --only-open when a port not expected open is open', async () => {
    const run = await check('--expect-open', '22', '--only-open');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL  port 8080 (http-alt) is open but not expected open');
    expect(run.stdout).not.toContain('no port is open beyond');
  });

  it('reads SELFSCAN_SERVER when --server is not given', async () => {
    const run = await runCheck(['--source', HOST, '--no-progress', '--expect-open', '22'], { env: cleanEnv({ SELFSCAN_SERVER: server.url }) });
    expect(run.code).toBe(0);
  });

  it('runs as `selfscan check` too (dist/cli.js)', async () => {
    const run = await runCheck(['--server', server.url, '--source', HOST, '--no-progress', '--expect-open', '22'], { via: 'cli' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('PASS  port 22 is open');
  });
});

describe('--policy FILE', () => {
  const policy = (content: unknown): string => {
    const path = join(work, `policy-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    return path;
  };

  it('holds the same expectations as the flags', async () => {
    const path = policy({ server: server.url, expect_open: [22, '8080'], expect_closed: '3306,5432', only_open: true });
    const run = await runCheck(['--policy', path, '--source', HOST, '--no-progress']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Verdict: PASS: 5 of 5 checks passed');
  });

  it('a violation in the policy fails', async () => {
    const path = policy({ server: server.url, expect_closed: [8080] });
    const run = await runCheck(['--policy', path, '--source', HOST, '--no-progress']);
    expect(run.code).toBe(1);
  });

  it('flags override it: a port named by a flag takes the flag expectation, --server the flag server', async () => {
    const path = policy({ server: 'http://127.0.0.1:9', expect_closed: [8080], expect_open: [22] });
    const run = await runCheck(['--policy', path, '--server', server.url, '--expect-open', '8080', '--source', HOST, '--no-progress']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('PASS  port 8080 is open');
    expect(run.stdout).toContain('PASS  port 22 is open');
  });

  it('--only-open from the flag, on top of the policy', async () => {
    const path = policy({ server: server.url, expect_open: [22] });
    const run = await runCheck(['--policy', path, '--only-open', '--source', HOST, '--no-progress']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL  port 8080 (http-alt) is open but not expected open');
  });

  it.each([
    ['not JSON', '{ "expect_open": [22', /policy: .* is not JSON/],
    ['an unknown key', { expect_opn: [22] }, /policy: unknown key "expect_opn"/],
    ['a bad port list', { expect_open: 'ssh' }, /not a port or range: "ssh"/],
    ['a port both open and closed', { expect_open: [22], expect_closed: [22] }, /port 22 is in both expect_open and expect_closed/],
    ['a wrong type', { only_open: 'yes' }, /policy: only_open must be a boolean/],
  ])('a policy with %s is a usage error (exit 2)', async (_name, content, message) => {
    const run = await runCheck(['--policy', policy(content), '--server', server.url, '--source', HOST]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('a policy file that does not exist is a usage error (exit 2)', async () => {
    const run = await runCheck(['--policy', join(work, 'missing.json'), '--server', server.url]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/policy: cannot read/);
  });
});

describe('usage errors (exit 2, nothing sent)', () => {
  it.each([
    [['--expect-open', '22,1234'], /a fast scan covers only .*; port 1234 need --deep/],
    [['--expect-open', '22-'], /not a port or range: "22-"/],
    [['--expect-closed', '0'], /not a port range within 1-65535: "0"/],
    [['--expect-open', '80-70'], /not a port range within 1-65535: "80-70"/],
    [['--expect-open', '22', '--expect-closed', '22'], /port 22 is in both --expect-open and --expect-closed/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['-4', '-6'], /-4 and -6 exclude each other/],
    [['--report', 'html'], /unknown report format "html"/],
    [['--timeout', 'soon'], /--timeout needs seconds above 0/],
  ])('%j', async (args, message) => {
    const run = await check(...args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('--help shows the options');
  });

  it('no server: neither --server nor SELFSCAN_SERVER', async () => {
    const run = await runCheck(['--expect-open', '22']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no server: pass --server URL or set SELFSCAN_SERVER');
  });

  it('a port outside the fast scan is fine with --deep', async () => {
    // Parsing only: --server points where nothing listens, so the run ends unreachable (2) without scanning 65535 ports.
    const run = await runCheck(['--deep', '--expect-open', '1234', '--server', 'http://127.0.0.1:9', '--no-progress']);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('cannot reach http://127.0.0.1:9');
  });

  it('--help says where to run it, and exits 0', async () => {
    const run = await runCheck(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("On a\nshared CI runner that is the runner's NAT, not your server.");
    expect(run.stdout).toContain('Exit codes:');
  });
});
