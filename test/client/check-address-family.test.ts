// -4 / -6 pick the connection's address family (node:http `family`), so a
// dual-stack host checks each of its addresses; the server then scans the
// address the check came from. This machine's `localhost` has only
// 127.0.0.1, so -6 to it cannot connect, and -4 can.
import { afterAll, beforeAll, expect, it } from 'vitest';

import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { runCheck } from '../helpers/check-cli.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let v4: TestServer;
let v6: TestServer;
let listeners: Listeners[];

beforeAll(async () => {
  v4 = await startTestServer();
  v6 = await startTestServer({ host: '::1' });
  listeners = [await listenOn('127.0.0.195', [27017], 'v4-hello'), await listenOn('::1', [27017], 'v6-hello')];
});
afterAll(async () => {
  for (const l of listeners ?? []) await l.close();
  await v4?.close();
  await v6?.close();
});

const json = (stdout: string) => JSON.parse(stdout) as { verdict: string; result: { ip: string; ports_open: { port: number; banner: string }[] } | null };

it('-4 (with --source): connects over IPv4, and the scan is of that address', async () => {
  const run = await runCheck(['-4', '--source', '127.0.0.195', '--server', `http://localhost:${v4.server.port}`, '--expect-open', '27017', '--report', 'json']);
  expect(run.code).toBe(0);
  expect(json(run.stdout).result).toMatchObject({ ip: '127.0.0.195', ports_open: [{ port: 27017, banner: 'v4-hello' }] });
});

it('-6: to a name with no IPv6 address, it cannot connect (exit 2)', async () => {
  const run = await runCheck(['-6', '--server', `http://localhost:${v4.server.port}`, '--no-progress']);
  expect(run.code).toBe(2);
  expect(run.stdout).toMatch(/cannot reach http:\/\/localhost:\d+: getaddrinfo ENOTFOUND localhost/);
});

it('-6: over IPv6, the scan is of the IPv6 address', async () => {
  const run = await runCheck(['-6', '--server', `http://[::1]:${v6.server.port}`, '--expect-open', '27017', '--report', 'json']);
  expect(run.code).toBe(0);
  expect(json(run.stdout).result).toMatchObject({ ip: '::1', ports_open: [{ port: 27017, banner: 'v6-hello' }] });
});
