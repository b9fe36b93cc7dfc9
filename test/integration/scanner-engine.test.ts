// Which scanner engine the real server runs (scanner.engine): auto falls
// back to connect, says so and still scans when the process lacks
// CAP_NET_RAW (dropped with capsh, from libcap2-bin); syn without it stops
// the start with a message saying how to grant it; auto as root runs syn.
// Real server processes; the scans are of loopback listeners.
import { describe, expect, it } from 'vitest';

import { FAST_PORTS } from '../../src/api/scan-type.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { runCli, type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { cleanupAfterEach } from '../helpers/test-cleanups.js';

/** Runs the rest of a command line without CAP_NET_RAW: capsh drops it from the bounding set, so the exec'd node has none. */
const WITHOUT_CAP_NET_RAW = ['capsh', '--drop=cap_net_raw', '--', '-c', 'exec "$0" "$@"'];
/** Facts off: the scans here are about the sweep. */
const CONFIG = { exposure: { facts: false } };

const { cleanups, tempDir } = cleanupAfterEach('selfscan-engine-');

async function serve(prefix: readonly string[] = []): Promise<ServerProcess> {
  const server = await startServerProcess(tempDir(), CONFIG, undefined, undefined, { prefix });
  cleanups.push(async () => {
    if (server.child.exitCode !== null) return;
    server.child.kill('SIGKILL');
    await server.exited;
  });
  return server;
}

async function healthOf(server: ServerProcess): Promise<Record<string, unknown>> {
  const response = await fetch(`${server.url}/healthz`);
  const body = (await response.json()) as Record<string, unknown>;
  validateResponse('GET', '/healthz', response.status, body);
  expect(response.status).toBe(200);
  return body;
}

function engineLines(server: ServerProcess): Record<string, unknown>[] {
  return server.logs.filter((line) => line.event === 'scanner_engine');
}

/** A fast scan of `caller` on `server` finds exactly the fast ports listening there, ours with their banner. */
async function expectFastScanExact(server: ServerProcess, caller: string): Promise<void> {
  const ours = [5900, 9200];
  const listeners = await listenOn(caller, ours, `engine test ${caller}`);
  cleanups.push(() => listeners.close());
  const fetchAs = callerFetch(caller);
  expect((await fetchAs(`${server.url}/v1/fast`, { method: 'POST' })).status).toBe(200);
  const result = (await pollUntilFinal(fetchAs, `${server.url}/v1/fast`)) as { status: string; ports_open: { port: number; banner: string | null }[] };
  expect(result.status).toBe('complete');
  const listening = listeningPorts(caller).filter((port) => FAST_PORTS.includes(port));
  expect(listening).toEqual(expect.arrayContaining(ours));
  expect(result.ports_open.map((port) => port.port)).toEqual(listening);
  for (const port of ours) expect(result.ports_open.find((open) => open.port === port)?.banner).toBe(`engine test ${caller}`);
}

describe('scanner.engine', () => {
  it('auto without CAP_NET_RAW: falls back to connect, logs that once, names it in /healthz, and scans', async () => {
    const server = await serve(WITHOUT_CAP_NET_RAW);
    expect(await healthOf(server)).toMatchObject({ ok: true, role: 'all', engine: 'connect' });
    const lines = engineLines(server);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, engine: 'connect', asked: 'auto' });
    expect(lines[0]!.msg).toBe('scanner engine: connect (no CAP_NET_RAW: raw socket: Operation not permitted; fell back from the syn engine)');
    await expectFastScanExact(server, '127.0.0.237');
  });

  it('syn without CAP_NET_RAW: the start stops, exit 2, with a message naming CAP_NET_RAW and how to grant it, no stack trace', async () => {
    const dataDir = tempDir();
    const run = runCli(
      ['serve', '--host', '127.0.0.1', '--port', '0', '--data-dir', dataDir, '--allow-private-targets'],
      { SELFSCAN_SCANNER_ENGINE: 'syn' },
      undefined,
      undefined,
      WITHOUT_CAP_NET_RAW,
    );
    cleanups.push(() => {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    });
    expect(await run.exited).toBe(2);
    const stderr = run.stderr();
    expect(stderr).toMatch(/^selfscan: scanner\.engine is syn, but the syn engine needs CAP_NET_RAW/);
    expect(stderr).toContain('setcap cap_net_raw+ep "$(readlink -f "$(which node)")"');
    expect(stderr).toContain('AmbientCapabilities=CAP_NET_RAW');
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(run.stdout()).not.toContain('"event":"listening"');
  });

  it('auto as root (CAP_NET_RAW): runs syn, logs why, names it in /healthz, and scans', async () => {
    const server = await serve();
    expect(await healthOf(server)).toMatchObject({ ok: true, role: 'all', engine: 'syn' });
    const lines = engineLines(server);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, engine: 'syn', asked: 'auto', msg: 'scanner engine: syn (CAP_NET_RAW)' });
    await expectFastScanExact(server, '127.0.0.238');
  });
});
