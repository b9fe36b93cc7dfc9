// Facts, severity and changes through the real server, the real scanner and
// real listeners on a loopback address of this file's own: a scan learns
// what listens and rates it, a later scan names the port that opened (in
// the result, the webhook and the MCP tool's answer) and the one that
// closed; the settings turn facts and fingerprints off.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { openLmdbFingerprints } from '../../src/lmdb/lmdb-fingerprints.js';
import { systemClock } from '../../src/model/clock.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { connectMcp } from '../../support/mcp-client.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { type ReceivedHook, startReceiver } from '../../support/webhook-receiver.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const TARGET = '127.26.9.1';
const OTHER_TARGET = '127.26.9.2';
const THIRD_TARGET = '127.26.9.3';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function server(overrides: Parameters<typeof startTestServer>[0] = {}): Promise<TestServer> {
  const started = await startTestServer({ allowPrivateCallbacks: true, ...overrides });
  cleanups.push(() => started.close());
  return started;
}

/** An HTTP server on `address`:8080 whose page has a title. */
async function titledPage(address: string): Promise<Server> {
  const page = createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html', server: 'exposure-test/1.0' }).end('<html><title>Exposure &amp; test</title></html>'),
  );
  await new Promise<void>((resolve) => page.listen(8080, address, resolve));
  cleanups.push(() => new Promise<void>((resolve) => page.close(() => resolve())));
  return page;
}

async function listeners(address: string, ports: number[]): Promise<Listeners> {
  const opened = await listenOn(address, ports);
  cleanups.push(() => opened.close());
  return opened;
}

type Result = Record<string, unknown> & { ports_open: Record<string, unknown>[] };

/** Starts a fast scan of `caller` (with a webhook to `callback`) and waits for its result. */
async function fastScan(s: TestServer, caller: string, callback?: string): Promise<Result> {
  const response = await callerFetch(caller)(`${s.url}/v1/fast`, { method: 'POST', headers: callback === undefined ? {} : { 'x-callback-url': callback } });
  validateResponse('POST', '/v1/fast', response.status, await response.json());
  return (await pollUntilFinal(callerFetch(caller), `${s.url}/v1/fast`)) as unknown as Result;
}

const portOf = (result: Result, port: number) => result.ports_open.find((entry) => entry.port === port);

describe('exposure through the server', () => {
  it('learns facts and rates each open port, then names what opened and what closed in the result, the webhook and the MCP answer', async () => {
    const s = await server();
    await titledPage(TARGET);
    const first = await fastScan(s, TARGET);
    expect(portOf(first, 8080)).toMatchObject({
      facts: { http: { tls: false, status: 200, title: 'Exposure & test', server: 'exposure-test/1.0', hsts: false, location: null } },
      risk: { severity: 'info' },
    });
    expect(first.severity).toBe('info');
    expect(first.changes).toBeNull(); // nothing remembered of this address yet

    const mysql = await listeners(TARGET, [3306]);
    const hooks = await startReceiver();
    cleanups.push(() => hooks.close());
    const second = await fastScan(s, TARGET, hooks.url('/hook'));
    expect(portOf(second, 3306)).toMatchObject({ risk: { severity: 'high', why: expect.stringContaining('MySQL') } });
    expect(second.severity).toBe('high');
    expect(second.changes).toStrictEqual({ since: first.completed_at, opened: [3306], closed: [], changed: [] });
    const [hook] = (await hooks.waitFor('/hook', 1)) as [ReceivedHook];
    expect(JSON.parse(hook.body)).toMatchObject({ event: 'scan.complete', result: { changes: { opened: [3306] }, severity: 'high' } });

    const mcp = await connectMcp(s.url, TARGET);
    cleanups.push(() => mcp.close());
    const answer = await mcp.callTool({ name: 'fast_scan', arguments: {} });
    expect(answer.structuredContent).toMatchObject({
      status: 'complete',
      severity: 'high',
      changes: { opened: [3306] },
      message: expect.stringMatching(/highest severity high: The MySQL database on port 3306 .* since the scan of .*: opened 3306\./),
    });

    await mysql.close();
    const third = await fastScan(s, TARGET);
    expect(third.changes).toMatchObject({ since: second.completed_at, opened: [], closed: [3306] });
    expect(third.severity).toBe('info');
    expect(s.logs.filter((line) => line.event === 'scan_finished').map((line) => line.opened)).toStrictEqual([undefined, 1, 0]);
  });

  it('reports neither facts nor severity with facts off, and no changes with fingerprints off', async () => {
    const s = await server({ exposure: { facts: false, fingerprintDays: 0 } });
    await titledPage(OTHER_TARGET);
    for (let scan = 0; scan < 2; scan++) {
      const result = await fastScan(s, OTHER_TARGET);
      expect(portOf(result, 8080)).toStrictEqual({ port: 8080, state: 'open', service: 'http-alt', banner: expect.stringContaining('HTTP/1.1 200') });
      expect(result).not.toHaveProperty('severity');
      expect(result).not.toHaveProperty('changes');
    }
  });

  it('keeps a fingerprint of the last complete scan, and deletes those it kept when restarted with a retention of 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-fingerprints-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const kept = async () => {
      const fingerprints = await openLmdbFingerprints(dataDir, systemClock);
      try {
        return await fingerprints.get(THIRD_TARGET, 'fast');
      } finally {
        await fingerprints.close();
      }
    };
    const first = await startTestServer({ dataDir });
    const result = await fastScan(first, THIRD_TARGET);
    await first.close();
    const fingerprint = await kept();
    expect(fingerprint?.ports).toStrictEqual([]); // nothing listens there
    expect(Math.floor(fingerprint!.completedAt / 1000)).toBe(result.completed_at);
    const second = await startTestServer({ dataDir, exposure: { facts: true, fingerprintDays: 0 } });
    await second.close();
    expect(await kept()).toBeNull();
  });
});
