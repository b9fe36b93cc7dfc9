// An event stream cut mid-scan (a proxy between the check and the server
// ends it after the first progress event): the check follows the same scan
// by polling v1 and still reports the right result.
import { afterEach, expect, it } from 'vitest';

import { listenOn } from '../../support/loopback-listeners.js';
import { runCheck } from '../helpers/check-cli.js';
import { startCuttingProxy } from '../helpers/cutting-proxy.js';
import { eventually } from '../helpers/eventually.js';
import { FakeScanner, openPort } from '../helpers/fake-scanner.js';
import { startTestServer } from '../helpers/test-server.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function behindProxy(scanner?: FakeScanner) {
  const server = await startTestServer({}, scanner === undefined ? {} : { scanner });
  cleanups.push(() => server.close());
  const proxy = await startCuttingProxy({ host: '127.0.0.1', port: server.server.port });
  cleanups.push(() => proxy.close());
  return { server, proxy };
}

it('the scan still in flight when the stream is cut: the check polls v1 until it ends, and judges the one scan', async () => {
  const scanner = new FakeScanner();
  const { server, proxy } = await behindProxy(scanner);
  const caller = '127.0.0.190';
  const running = runCheck(['--server', proxy.url, '--source', caller, '--expect-open', '22', '--expect-closed', '3306', '--only-open', '--timeout', '30']);
  await eventually(() => scanner.scans.length === 1, 10_000, 'the scan to start');
  const scan = scanner.scans[0]!;
  scan.chunk({ index: 0, total: 4, open: [openPort(22, 'SSH-2.0-cut')] }); // the progress event the proxy cuts after
  // The check now polls GET /v1/fast through the proxy; only then does the scan end.
  await eventually(() => server.logs.some((line) => line.event === 'request' && line.path === '/v1/fast' && line.ip === caller), 10_000, 'a v1 poll');
  expect(scan.cancelled).toBe(false);
  scan.chunk({ index: 1, total: 4, open: [openPort(3306, null)] });
  scan.chunk({ index: 2, total: 4 });
  scan.chunk({ index: 3, total: 4 });
  scan.complete();
  const run = await running;
  expect(proxy.cuts).toBe(1);
  expect(run.stderr).toContain('selfscan-check: the event stream was cut before the scan ended; following it by polling /v1/fast');
  expect(run.code).toBe(1);
  expect(run.stdout).toContain('PASS  port 22 is open');
  expect(run.stdout).toContain('FAIL  port 3306 is open, expected closed or filtered');
  expect(scanner.scans).toHaveLength(1);
  expect(server.logs.filter((line) => line.event === 'request' && line.method === 'POST')).toEqual([]);
});

it('with the real scanner: the stream cut after its first progress event, the result is still right', async () => {
  const { proxy } = await behindProxy();
  const listeners = await listenOn('127.0.0.191', [22, 8080], 'SSH-2.0-realcut');
  cleanups.push(() => listeners.close());
  const run = await runCheck([
    '--server',
    proxy.url,
    '--source',
    '127.0.0.191',
    '--expect-open',
    '22,8080',
    '--expect-closed',
    '443',
    '--only-open',
    '--report',
    'json',
  ]);
  expect(proxy.cuts).toBe(1);
  expect(run.stderr).toContain('the event stream was cut');
  expect(run.code).toBe(0);
  const report = JSON.parse(run.stdout) as { verdict: string; result: { status: string; ports_open: { port: number }[] } };
  expect(report.verdict).toBe('pass');
  expect(report.result.status).toBe('complete');
  expect(report.result.ports_open.map((p) => p.port)).toEqual([22, 8080]);
});
