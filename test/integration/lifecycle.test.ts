// The service across crashes, shutdowns and time: nothing accepted is lost,
// results expire after 24 h, budgets end scans incomplete, streams of a
// stopping server get their terminal event. Real server processes.
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { RESULT_TTL_MS } from '../../src/scan/scan-finisher.js';
import { type CallerFetch, callerFetch, pollUntilFinal } from '../../support/callers.js';
import { startDnsServer } from '../../support/dns-server.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { runCli, type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { silentUdpPorts } from '../../support/silent-udp-ports.js';
import { startUdpMemcached } from '../../support/udp-memcached.js';
import { startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';
import { cleanupAfterEach } from '../helpers/test-cleanups.js';
import { startTestServer } from '../helpers/test-server.js';

const { cleanups, tempDir } = cleanupAfterEach('selfscan-life-');

/** A deep scan's chunk of `port`: chunk i holds ports i·1024+1 to (i+1)·1024. */
const chunkOf = (port: number): number => Math.floor((port - 1) / 1024);

/** One listener in each of a deep scan's 64 chunks on `address`, greeting `resume me`; their ports. */
async function listenPerChunk(address: string): Promise<number[]> {
  const ports = Array.from({ length: 64 }, (_, chunk) => Math.min(chunk * 1024 + 700, 65535));
  const listeners = await listenOn(address, ports, 'resume me');
  cleanups.push(() => listeners.close());
  return ports;
}

/**
 * Polls the deep scan of `fetch`'s caller on `server` until it shows a
 * verified chunk, then kills the server (-9); the chunks it showed.
 */
async function killMidScan(server: ServerProcess, fetch: CallerFetch): Promise<number> {
  for (;;) {
    const body = (await (await fetch(`${server.url}/v1/deep`)).json()) as { status: string; chunks_complete?: number };
    if (body.status !== 'queued' && body.status !== 'running') throw new Error(`the scan ended before the kill: ${JSON.stringify(body)}`);
    if ((body.chunks_complete ?? 0) > 0) {
      server.child.kill('SIGKILL'); // no chance to finish or record anything more
      await server.exited;
      expect(body.chunks_complete).toBeLessThan(64);
      return body.chunks_complete!;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function track(server: ServerProcess): ServerProcess {
  cleanups.push(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });
  return server;
}

describe('restart', () => {
  it('resumes a deep scan killed mid-way (kill -9): its progress never goes back, it ends exact, its webhook arrives once', async () => {
    const caller = '127.0.0.250';
    const ours = await listenPerChunk(caller);
    const hooks = await startReceiver();
    cleanups.push(() => hooks.close());
    const dataDir = tempDir();
    const config = { allowPrivateCallbacks: true };
    const first = track(await startServerProcess(dataDir, config));
    const fetch = callerFetch(caller);
    const started = await fetch(`${first.url}/v1/deep`, { method: 'POST', headers: { 'x-callback-url': hooks.url('/resumed') } });
    expect(started.status).toBe(200);
    const before = await killMidScan(first, fetch);

    const second = track(await startServerProcess(dataDir, config));
    const answers: { status: string; chunks_complete?: number }[] = [];
    for (;;) {
      const body = (await (await fetch(`${second.url}/v1/deep`)).json()) as { status: string; chunks_complete?: number } & Record<string, unknown>;
      validateResponse('GET', '/v1/deep', 200, body);
      answers.push(body);
      if (body.status !== 'queued' && body.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Every answer after the restart shows at least what was shown before the kill.
    expect(answers[0]!.status === 'complete' || answers[0]!.chunks_complete! >= before).toBe(true);
    for (const answer of answers.slice(0, -1)) expect(answer.chunks_complete).toBeGreaterThanOrEqual(before);
    const result = answers.at(-1) as { status: string; ports_open: { port: number; banner: string | null }[] };
    expect(result.status).toBe('complete');
    const listening = listeningPorts(caller);
    expect(listening).toEqual(expect.arrayContaining(ours));
    expect(result.ports_open.map((p) => p.port)).toEqual(listening);

    // It resumed (scanning only what was left), and ended once.
    const resumed = second.logs.filter((l) => l.event === 'scan_resumed' && l.ip === caller);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.chunksComplete as number).toBeGreaterThanOrEqual(before);
    expect(resumed[0]!.chunksLeft).toBe(64 - (resumed[0]!.chunksComplete as number));
    expect(first.logs.filter((l) => l.event === 'scan_finished')).toEqual([]);
    await eventually(() => second.logs.some((l) => l.event === 'scan_finished' && l.ip === caller), 5000, 'scan_finished logged');
    expect(second.logs.filter((l) => l.event === 'scan_finished' && l.ip === caller)).toMatchObject([{ status: 'complete' }]);

    const [hook] = await hooks.waitFor('/resumed', 1);
    expect(hook!.headers['x-selfscan-event']).toBe('scan.complete');
    expect(JSON.parse(hook!.body)).toEqual({ event: 'scan.complete', result });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.received.filter((h) => h.path === '/resumed')).toHaveLength(1); // (other scans of 127.0.0.1 may probe the receiver)
  });

  it('ends a deep scan killed mid-way incomplete, with the ports of its verified chunks, when the restart finds it past its budget', async () => {
    const caller = '127.0.0.251';
    const ours = await listenPerChunk(caller);
    const dataDir = tempDir();
    const first = track(await startServerProcess(dataDir));
    const fetch = callerFetch(caller);
    expect((await fetch(`${first.url}/v1/deep`, { method: 'POST' })).status).toBe(200);
    const before = await killMidScan(first, fetch);

    const second = track(await startServerProcess(dataDir, { scanBudgetSeconds: { deep: 0.001 } }));
    const result = (await pollUntilFinal(fetch, `${second.url}/v1/deep`)) as { status: string; chunks_complete: number; ports_open: { port: number }[] };
    expect(result).toMatchObject({ status: 'incomplete', partial: true, total_chunks: 64 });
    expect(result.chunks_complete).toBeGreaterThanOrEqual(before);
    expect(result.chunks_complete).toBeLessThan(64);
    // One of our listeners per chunk: the verified chunks are those whose listener was found, all of them.
    const found = result.ports_open.map((p) => p.port);
    const chunks = new Set(found.filter((port) => ours.includes(port)).map(chunkOf));
    expect(chunks.size).toBe(result.chunks_complete);
    expect(found).toEqual(listeningPorts(caller).filter((port) => chunks.has(chunkOf(port))));
    expect(second.logs.some((l) => l.event === 'scan_resumed' && l.ip === caller && l.budgetLeftMs === 0)).toBe(true);
  });

  it('runs after a restart a scan a crash left queued', async () => {
    const dataDir = tempDir();
    const first = track(await startServerProcess(dataDir, { concurrency: { deep: 1 } }));
    const busy = callerFetch('127.0.0.252');
    const waiting = callerFetch('127.0.0.253');
    await busy(`${first.url}/v1/deep`, { method: 'POST' });
    expect(await (await waiting(`${first.url}/v1/deep`, { method: 'POST' })).json()).toMatchObject({ status: 'queued' });
    first.child.kill('SIGKILL');
    await first.exited;

    const second = track(await startServerProcess(dataDir, { concurrency: { deep: 1 } }));
    // Recovered as queued, behind the resumed scan: a deep scan of loopback
    // takes a fifth of a second, so by the first GET it may be running.
    await eventually(
      () => second.logs.some((l) => l.event === 'scan_recovered' && l.ip === '127.0.0.253' && l.status === 'queued'),
      5000,
      'recovered as queued',
    );
    expect(await (await waiting(`${second.url}/v1/deep`)).json()).toMatchObject({ status: expect.stringMatching(/^(queued|running)$/) });
    expect(await pollUntilFinal(waiting, `${second.url}/v1/deep`)).toMatchObject({ status: 'complete' });
    expect(await pollUntilFinal(busy, `${second.url}/v1/deep`)).toMatchObject({ status: 'complete' });
    // One deep scan at a time still: the recovered one ran after the resumed one ended.
    const finished = () => second.logs.filter((l) => l.event === 'scan_finished').map((l) => l.ip);
    await eventually(() => finished().length === 2, 5000, 'both scans logged');
    expect(finished()).toEqual(['127.0.0.252', '127.0.0.253']);
  });

  it('after kill -9 runs both udp scans it left, the one running and the one queued, to exact results', async () => {
    // One udp scan at a time. The first caller's SIP port takes datagrams and never answers (no
    // ICMP either), so its scan runs until the silence is judged; the second caller's waits in line.
    const [busyIp, waitingIp] = ['127.27.3.1', '127.27.3.2'];
    const silent = await silentUdpPorts(busyIp, [5060]);
    cleanups.push(() => silent.close());
    const memcached = await startUdpMemcached(waitingIp);
    cleanups.push(() => memcached.close());
    const dataDir = tempDir();
    const config = { concurrency: { udp: 1 } };
    const first = track(await startServerProcess(dataDir, config));
    const [busy, waiting] = [callerFetch(busyIp), callerFetch(waitingIp)];
    expect((await busy(`${first.url}/v1/udp`, { method: 'POST' })).status).toBe(200);
    expect(await (await waiting(`${first.url}/v1/udp`, { method: 'POST' })).json()).toMatchObject({ status: 'queued' });
    const statusOf = async (fetch: CallerFetch) => ((await (await fetch(`${first.url}/v1/udp`)).json()) as { status: string }).status;
    await eventually(async () => (await statusOf(busy)) === 'running', 5000, 'the first udp scan to run');
    expect(await statusOf(waiting)).toBe('queued');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(first.logs.filter((l) => l.event === 'scan_finished')).toEqual([]);

    const second = track(await startServerProcess(dataDir, config));
    const recovered = () => second.logs.filter((l) => l.event === 'scan_recovered').map((l) => [l.ip, l.scanType, l.status]);
    await eventually(() => recovered().length === 2, 5000, 'both udp scans recovered');
    expect(recovered()).toEqual([
      [busyIp, 'udp', 'running'],
      [waitingIp, 'udp', 'queued'],
    ]);
    const busyResult = await pollUntilFinal(busy, `${second.url}/v1/udp`);
    validateResponse('GET', '/v1/udp', 200, busyResult);
    expect(busyResult).toMatchObject({ scan_type: 'udp', status: 'complete', ports_open: [] });
    expect((busyResult.ports_filtered as { port: number }[]).map((p) => p.port)).toEqual([5060]);
    const waitingResult = await pollUntilFinal(waiting, `${second.url}/v1/udp`);
    validateResponse('GET', '/v1/udp', 200, waitingResult);
    expect(waitingResult).toMatchObject({ scan_type: 'udp', status: 'complete', severity: 'critical', ports_filtered: [] });
    expect((waitingResult.ports_open as { port: number; state: string }[]).map((p) => [p.port, p.state])).toEqual([[11211, 'open']]);
    await eventually(() => second.logs.filter((l) => l.event === 'scan_finished').length === 2, 5000, 'both scans logged');
    expect(second.logs.filter((l) => l.event === 'scan_finished').map((l) => l.ip)).toEqual([busyIp, waitingIp]);
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
    const server = await startTestServer({ scanBudgetSeconds: { fast: 120, deep: 0.02, udp: 60 } });
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
    const badPoller = runCli(['serve'], { SELFSCAN_SCANNER_POLLER: 'select' });
    expect(await badPoller.exited).toBe(2);
    expect(badPoller.stderr()).toContain('SELFSCAN_SCANNER_POLLER');
  });

  it('refuses to start on a scanner poller this platform lacks, saying which it has', async () => {
    const run = runCli(['serve'], { SELFSCAN_HOST: '127.0.0.1', SELFSCAN_PORT: '0', SELFSCAN_DATA_DIR: tempDir(), SELFSCAN_SCANNER_POLLER: 'kqueue' });
    expect(await run.exited).toBe(1);
    expect(run.stdout() + run.stderr()).toContain('poller kqueue is not available on linux-x64 (this build has epoll, poll)');
  });

  it('takes its settings from SELFSCAN_* environment variables', async () => {
    const dataDir = tempDir();
    const run = runCli(['serve'], {
      SELFSCAN_HOST: '127.0.0.1',
      SELFSCAN_PORT: '0',
      SELFSCAN_DATA_DIR: dataDir,
      SELFSCAN_ALLOW_PRIVATE_TARGETS: '1',
      SELFSCAN_SCANNER_POLLER: 'poll',
    });
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
    expect(JSON.parse(line ?? '{}')).toMatchObject({ host: '127.0.0.1', allowPrivateTargets: true, poller: 'poll' });
  });
});
