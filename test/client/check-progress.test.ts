// Progress and colour as a person or a CI log sees them: the bar redrawn
// under a pseudo-terminal (util-linux `script`), a line per quarter with CI
// set, nothing when piped; colour on a terminal, and no escape code at all
// with NO_COLOR or TERM=dumb.
import { spawn } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { CHECK_BUNDLE, cleanEnv, runCheck } from '../helpers/check-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HOST = '127.0.0.185';
let server: TestServer;
let listeners: Listeners;

beforeAll(async () => {
  server = await startTestServer();
  listeners = await listenOn(HOST, [22], 'SSH-2.0-progress');
});
afterAll(async () => {
  await listeners?.close();
  await server?.close();
});

const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs selfscan-check ARGS under a pseudo-terminal: stdout and stderr both the terminal; resolves what it showed. */
function underTerminal(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, CHECK_BUNDLE, ...args].map(quote).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: cleanEnv({ TERM: 'xterm', ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (screen += text));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, screen })));
}

const args = () => ['--server', server.url, '--source', HOST, '--expect-open', '22'];

describe('on a terminal', () => {
  it('draws the bar in place (ports done/total, open so far), clears it, and colours the verdict', async () => {
    const { code, screen } = await underTerminal(args());
    expect(code).toBe(0);
    expect(screen).toMatch(/\r\[[#-]{24}\] \d+\/32 ports, \d+ open/);
    expect(screen).toMatch(/\r\[#{24}\] 32\/32 ports, 1 open/);
    expect(screen).toMatch(/\r {20,}\r/); // cleared before the report
    expect(screen).toContain('\x1b[32mPASS\x1b[0m  port 22 is open');
  });

  it('NO_COLOR: no escape code anywhere, bar included', async () => {
    const { code, screen } = await underTerminal(args(), { NO_COLOR: '1' });
    expect(code).toBe(0);
    expect(screen).toContain('PASS  port 22 is open');
    expect(screen).toMatch(/\] 32\/32 ports/);
    expect(screen).not.toContain('\x1b');
  });

  it('TERM=dumb: no colour either', async () => {
    const { screen } = await underTerminal(args(), { TERM: 'dumb' });
    expect(screen).toContain('PASS  port 22 is open');
    expect(screen).not.toContain('\x1b');
  });

  it('--no-progress: no bar', async () => {
    const { screen } = await underTerminal([...args(), '--no-progress']);
    expect(screen).toContain('PASS\x1b[0m  port 22 is open');
    expect(screen).not.toContain('ports,');
  });
});

describe('not on a terminal', () => {
  it('piped: nothing on stderr, no colour on stdout', async () => {
    const run = await runCheck(args());
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).not.toContain('\x1b');
  });

  it('with CI set: one line per quarter, no redraws', async () => {
    const run = await runCheck(args(), { env: cleanEnv({ CI: 'true' }) });
    expect(run.code).toBe(0);
    expect(run.stderr).not.toContain('\r');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.map((line) => /^selfscan-check: (\d+)% \(\d+\/32 ports, \d+ open\)$/.exec(line)?.[1])).toEqual(['25', '50', '75', '100']);
    expect(lines.at(-1)).toBe('selfscan-check: 100% (32/32 ports, 1 open)');
  });

  it('with CI set and --no-progress: nothing', async () => {
    const run = await runCheck([...args(), '--no-progress'], { env: cleanEnv({ CI: 'true' }) });
    expect(run.stderr).toBe('');
  });
});
