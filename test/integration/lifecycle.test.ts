// The service across crashes, shutdowns and time: nothing accepted is lost,
// results expire after 24 h, budgets end scans incomplete, streams of a
// stopping server get their terminal event. Real server processes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { RESULT_TTL_MS } from '../../src/scan/scan-finisher.js';
import { callerFetch, pollUntilFinal } from '../helpers/callers.js';
import { startDnsServer } from '../helpers/dns-server.js';
import { validateResponse } from '../helpers/openapi-validator.js';
import { runCli, type ServerProcess, startServerProcess } from '../helpers/server-process.js';
import { startTestServer } from '../helpers/test-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-life-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function track(server: ServerProcess): ServerProcess {
  cleanups.push(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  return server;
}

describe('restart', () => {
  it('reports a scan that was in flight at a crash as failed (interrupted)', async () => {
    const dataDir = tempDir();
    const first = track(await startServerProcess(dataDir));
    const fetch = callerFetch('127.0.0.31');
    const started = await fetch(`${first.url}/v1/deep`, { method: 'POST' });
    expect(started.status).toBe(200);
    first.child.kill('SIGKILL'); // no chance to finish or record anything more
    await first.exited;

    const second = track(await startServerProcess(dataDir));
    const response = await fetch(`${second.url}/v1/deep`);
    const body = await response.json();
    validateResponse('GET', '/v1/deep', 200, body);
    expect(body).toMatchObject({ ip: '127.0.0.31', status: 'failed', fail_reason: 'interrupted', total_chunks: 64 });
    expect(second.logs.some((l) => l.event === 'scan_interrupted' && l.ip === '127.0.0.31')).toBe(true);
  });

  it('keeps finished results across a restart', async () => {
    const dataDir = tempDir();
    const first = track(await startServerProcess(dataDir));
    const fetch = callerFetch('127.0.0.32');
    await fetch(`${first.url}/v1/fast`, { method: 'POST' });
    const result = await pollUntilFinal(fetch, `${first.url}/v1/fast`);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const second = track(await startServerProcess(dataDir));
    expect(await (await fetch(`${second.url}/v1/fast`)).json()).toEqual(result);
  });

  it('on SIGTERM, gives open streams their terminal event, then exits', async () => {
    const server = track(await startServerProcess(tempDir(), { drainSeconds: 0.05 }));
    const socket = connect({ host: '127.0.0.1', port: Number(new URL(server.url).port), localAddress: '127.0.0.33' });
    let text = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /v2/deep HTTP/1.1\r\nHost: x\r\n\r\n');
    while (!text.includes('event: scan:progress')) await new Promise((resolve) => setTimeout(resolve, 5));
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await closed;
    expect(text).toMatch(/event: scan:(failed|complete)\n/);
    if (text.includes('event: scan:failed')) expect(text).toContain('"fail_reason":"interrupted"');
  });
});

describe('in-process server', () => {
  it('forgets a result 24 hours after completion (injected clock)', async () => {
    let now = Date.now();
    const server = await startTestServer({}, { clock: { now: () => now } });
    cleanups.push(() => server.close());
    const fetch = callerFetch('127.0.0.34');
    await fetch(`${server.url}/v1/fast`, { method: 'POST' });
    const result = await pollUntilFinal(fetch, `${server.url}/v1/fast`);
    expect(result.status).toBe('complete');
    now += RESULT_TTL_MS - 1000;
    expect((await (await fetch(`${server.url}/v1/fast`)).json()) as object).toEqual(result);
    now += 1000;
    expect(await (await fetch(`${server.url}/v1/fast`)).json()).toEqual({ ip: '127.0.0.34', scan_type: 'fast', status: 'none' });
  });

  it('ends a scan past its time budget as incomplete, with partial results', async () => {
    const server = await startTestServer({ scanBudgetSeconds: { fast: 120, deep: 0.02 } });
    cleanups.push(() => server.close());
    const fetch = callerFetch('127.0.0.35');
    await fetch(`${server.url}/v1/deep`, { method: 'POST' });
    const result = await pollUntilFinal(fetch, `${server.url}/v1/deep`);
    validateResponse('GET', '/v1/deep', 200, result);
    expect(result).toMatchObject({ status: 'incomplete', partial: true, total_chunks: 64 });
    expect(result.chunks_complete as number).toBeLessThan(64);
  });

  it('fills ptr_record by reverse DNS', async () => {
    const dns = await startDnsServer({ '127.0.0.36': 'caller36.selfscan.test' });
    cleanups.push(() => dns.close());
    const server = await startTestServer({ dns: { servers: [dns.address], timeoutMs: 1000 } });
    cleanups.push(() => server.close());
    const fetch = callerFetch('127.0.0.36');
    await fetch(`${server.url}/v1/fast`, { method: 'POST' });
    expect(await pollUntilFinal(fetch, `${server.url}/v1/fast`)).toMatchObject({ status: 'complete', ptr_record: 'caller36.selfscan.test' });
  });
});

describe('command line', () => {
  it('prints help and version, and refuses bad flags and configs with exit code 2', async () => {
    const help = runCli(['--help']);
    expect(await help.exited).toBe(0);
    for (const flag of ['--host', '--port', '--data-dir', '--config', '--allow-private-targets']) expect(help.stdout()).toContain(flag);
    const version = runCli(['--version']);
    expect(await version.exited).toBe(0);
    expect(version.stdout().trim()).toMatch(/^\d+\.\d+\.\d+/);

    const badFlag = runCli(['serve', '--bogus']);
    expect(await badFlag.exited).toBe(2);
    expect(badFlag.stderr()).toContain('--bogus');
    const badPort = runCli(['serve', '--port', 'http']);
    expect(await badPort.exited).toBe(2);
    expect(badPort.stderr()).toContain('--port');
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    const badConfig = runCli(['serve', '--config', join(dir, 'bad.json')]);
    expect(await badConfig.exited).toBe(2);
    expect(badConfig.stderr()).toContain('not valid JSON');
    const unknown = runCli(['scan']);
    expect(await unknown.exited).toBe(2);
  });

  it('takes its settings from SELFSCAN_* environment variables', async () => {
    const dataDir = tempDir();
    const run = runCli(['serve'], { SELFSCAN_HOST: '127.0.0.1', SELFSCAN_PORT: '0', SELFSCAN_DATA_DIR: dataDir, SELFSCAN_ALLOW_PRIVATE_TARGETS: '1' });
    cleanups.push(() => {
      run.child.kill('SIGKILL');
    });
    let line: string | undefined;
    while (line === undefined && run.child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      line = run
        .stdout()
        .split('\n')
        .find((l) => l.includes('"event":"listening"'));
    }
    expect(JSON.parse(line ?? '{}')).toMatchObject({ host: '127.0.0.1', allowPrivateTargets: true });
  });
});
