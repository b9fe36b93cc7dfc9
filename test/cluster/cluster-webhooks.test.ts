// Cluster webhooks over a redis-server of the test's own and a real receiver
// on loopback: one signed delivery per registration however often (and on
// however many API nodes) the finish is reported, registrations after the
// end or for a lost scan, our retry schedule, one signing key for every
// node, and a node killed (SIGKILL) in the middle of an attempt.
import { type ChildProcess, spawn } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';

import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';

import { SCAN_PROFILES } from '../../src/api/scan-type.js';
import type { Config } from '../../src/config/config.js';
import type { ScanRecord } from '../../src/model/scan-record.js';
import { hooksKey } from '../../src/redis/redis-keys.js';
import { RedisResultStore } from '../../src/redis/redis-result-store.js';
import { type ClusterWebhooksOptions, openClusterWebhooks } from '../../src/roles/cluster-webhooks.js';
import { finalBody } from '../../src/scan/result-view.js';
import type { WebhookService } from '../../src/webhook/webhook-service.js';
import { type ReceivedHook, type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { eventually } from '../helpers/eventually.js';
import { redisPerFile } from '../helpers/redis-per-file.js';
import { queuedRecord } from '../helpers/scan-records.js';

const CHILD = fileURLToPath(new URL('./children/webhook-node-child.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG: Config['webhooks'] = { retryDelaysSeconds: [0.2, 0.4], timeoutSeconds: 2 };

const connect = redisPerFile();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

/** An API node: its webhooks and the log lines they wrote. */
async function apiNode(options: Partial<ClusterWebhooksOptions> = {}): Promise<{ webhooks: WebhookService; logs: Record<string, unknown>[] }> {
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const webhooks = await openClusterWebhooks({
    redis: connect(),
    redisUrl: connect.url(),
    config: CONFIG,
    allowPrivateCallbacks: true,
    userAgent: 'selfscan/test',
    logger: pino(sink),
    work: true,
    ...options,
  });
  cleanups.push(() => webhooks.close());
  return { webhooks, logs };
}

/** An API node in a child process, for killing: resolves once its worker is connected. */
async function childNode(config: Config['webhooks']): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, connect.url(), JSON.stringify(config)], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => void child.kill('SIGKILL'));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`webhook node exited (${code}) before it was ready:\n${stderr}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const store = (): RedisResultStore => new RedisResultStore(connect());

function running(ip: string): ScanRecord {
  return queuedRecord(ip, 'fast', { status: 'running', startedAt: Date.now() });
}

function completed(record: ScanRecord): ScanRecord {
  const now = Date.now();
  return {
    ...record,
    status: 'complete',
    completedAt: now,
    expiresAt: now + 60_000,
    durationMs: 1200,
    chunksComplete: record.totalChunks,
    portsOpen: [{ port: 22, state: 'open', service: 'ssh', banner: 'SSH-2.0-OpenSSH_9.6' }],
  };
}

function attempts(logs: Record<string, unknown>[]): Record<string, unknown>[] {
  return logs.filter((line) => line.event === 'webhook_attempt');
}

function verifies(hook: ReceivedHook, pem: string): boolean {
  const signed = Buffer.from(`${hook.headers['x-selfscan-timestamp']}.${hook.body}`);
  return verify(null, signed, createPublicKey(pem), Buffer.from(String(hook.headers['x-selfscan-signature']), 'base64'));
}

describe('ClusterWebhooks', () => {
  it('sends one POST, signed with the shared key, when a registered scan is finished', async () => {
    const hooks = await receiver();
    const { webhooks, logs } = await apiNode();
    const scan = running('203.0.113.10');
    await store().put(scan);
    await webhooks.register(scan.id, scan.ip, 'fast', hooks.url('/done'));
    await sleep(300);
    expect(hooks.received).toHaveLength(0); // still in flight: nothing is owed yet

    const final = completed(scan);
    await store().put(final);
    await webhooks.scanFinished(final);
    const [hook] = (await hooks.waitFor('/done', 1)) as [ReceivedHook];
    const [deliveryId] = Object.keys(await connect().hgetall(hooksKey(scan.id)));
    expect(hook.headers['x-selfscan-delivery']).toBe(deliveryId);
    expect(hook.headers['x-selfscan-event']).toBe('scan.complete');
    expect(hook.headers['content-type']).toBe('application/json');
    expect(hook.headers['user-agent']).toBe('selfscan/test');
    expect(JSON.parse(hook.body)).toEqual({ event: 'scan.complete', result: finalBody(final) });
    expect(verifies(hook, webhooks.key.publicDocument.pem)).toBe(true);
    expect(verifies({ ...hook, body: `${hook.body} ` }, webhooks.key.publicDocument.pem)).toBe(false);

    await sleep(300);
    expect(hooks.received).toHaveLength(1);
    expect(attempts(logs)).toMatchObject([{ delivery: deliveryId, scanId: scan.id, attempt: 1, outcome: 'delivered', status: 200, willRetry: false }]);
  });

  it('keeps registrations in the format earlier versions wrote: a node upgraded mid-scan still sends them', async () => {
    const hooks = await receiver();
    const { webhooks } = await apiNode();
    const scan = running('203.0.113.19');
    await store().put(scan);
    // As a node of the previous version registered it: field = delivery id, value = url, ip and scan type.
    await connect().hset(hooksKey(scan.id), 'earlier-delivery', JSON.stringify({ url: hooks.url('/earlier'), ip: scan.ip, scanType: 'fast' }));
    await webhooks.register(scan.id, scan.ip, 'fast', hooks.url('/later'));
    const stored = Object.values(await connect().hgetall(hooksKey(scan.id))).map((json) => JSON.parse(json) as Record<string, unknown>);
    expect(stored.map((value) => Object.keys(value).sort())).toEqual([
      ['ip', 'scanType', 'url'],
      ['ip', 'scanType', 'url'],
    ]);
    const final = completed(scan);
    await store().put(final);
    await webhooks.scanFinished(final);
    const [earlier] = await hooks.waitFor('/earlier', 1);
    await hooks.waitFor('/later', 1);
    expect(earlier!.headers['x-selfscan-delivery']).toBe('earlier-delivery');
    expect(JSON.parse(earlier!.body)).toEqual({ event: 'scan.complete', result: finalBody(final) });
  });

  it('makes one delivery series however often, and on however many nodes, the finish is reported', async () => {
    const hooks = await receiver();
    const a = await apiNode();
    const b = await apiNode();
    const scan = running('203.0.113.11');
    await store().put(scan);
    await a.webhooks.register(scan.id, scan.ip, 'fast', hooks.url('/once'));
    const final = completed(scan);
    await store().put(final);
    await Promise.all([a.webhooks.scanFinished(final), b.webhooks.scanFinished(final), b.webhooks.scanFinished(final)]);
    await hooks.waitFor('/once', 1);
    await b.webhooks.scanFinished(final); // a finisher redone after the delivery
    await sleep(500);
    expect(hooks.received).toHaveLength(1);
  });

  it('delivers a registration made after its scan ended, and one made for a lost scan as failed/interrupted', async () => {
    const hooks = await receiver();
    const { webhooks } = await apiNode();
    const ended = completed(running('203.0.113.12'));
    await store().put(ended);
    const replaced = queuedRecord('203.0.113.13', 'fast'); // its record now belongs to a newer scan
    await store().put(completed(queuedRecord('203.0.113.13', 'fast')));
    const gone = queuedRecord('203.0.113.14', 'fast'); // no record at all (expired)

    await webhooks.register(ended.id, ended.ip, 'fast', hooks.url('/ended'));
    await webhooks.register(replaced.id, replaced.ip, 'fast', hooks.url('/replaced'));
    await webhooks.register(gone.id, gone.ip, 'fast', hooks.url('/gone'));

    const [late] = await hooks.waitFor('/ended', 1);
    expect(late!.headers['x-selfscan-event']).toBe('scan.complete');
    expect(JSON.parse(late!.body)).toEqual({ event: 'scan.complete', result: finalBody(ended) });
    for (const [path, ip] of [
      ['/replaced', '203.0.113.13'],
      ['/gone', '203.0.113.14'],
    ] as const) {
      const [lost] = await hooks.waitFor(path, 1);
      expect(lost!.headers['x-selfscan-event']).toBe('scan.failed');
      expect(JSON.parse(lost!.body)).toEqual({
        event: 'scan.failed',
        result: { ip, scan_type: 'fast', status: 'failed', chunks_complete: 0, total_chunks: SCAN_PROFILES.fast.totalChunks, fail_reason: 'interrupted' },
      });
    }
  });

  it('retries 5xx answers after the configured delays with the same bytes, and stops after the last attempt', async () => {
    const hooks = await receiver();
    hooks.answer('/flaky', 500, 500, 200);
    hooks.answer('/down', 503);
    const { webhooks, logs } = await apiNode();
    const flaky = completed(running('203.0.113.15'));
    const down = completed(running('203.0.113.16'));
    await store().put(flaky);
    await store().put(down);
    await webhooks.register(flaky.id, flaky.ip, 'fast', hooks.url('/flaky'));
    await webhooks.register(down.id, down.ip, 'fast', hooks.url('/down'));

    const received = await hooks.waitFor('/flaky', 3);
    expect(new Set(received.map((h) => h.headers['x-selfscan-delivery'])).size).toBe(1);
    expect(new Set(received.map((h) => h.body)).size).toBe(1);
    const [first, second, third] = received as [ReceivedHook, ReceivedHook, ReceivedHook];
    expect(second.at - first.at).toBeGreaterThanOrEqual(190);
    expect(second.at - first.at).toBeLessThan(380);
    expect(third.at - second.at).toBeGreaterThanOrEqual(390);
    expect(third.at - second.at).toBeLessThan(900);

    await hooks.waitFor('/down', 3);
    await sleep(1000);
    expect(hooks.received.filter((h) => h.path === '/flaky')).toHaveLength(3);
    expect(hooks.received.filter((h) => h.path === '/down')).toHaveLength(3);
    const byUrl = (path: string) => attempts(logs).filter((line) => String(line.url).endsWith(path));
    expect(byUrl('/flaky').map((l) => [l.attempt, l.outcome, l.willRetry])).toEqual([
      [1, 'retry', true],
      [2, 'retry', true],
      [3, 'delivered', false],
    ]);
    expect(byUrl('/down').map((l) => [l.attempt, l.outcome, l.willRetry])).toEqual([
      [1, 'retry', true],
      [2, 'retry', true],
      [3, 'retry', false],
    ]);
  });

  it('gives every API node the same signing key', async () => {
    const hooks = await receiver();
    const a = await apiNode({ work: false });
    const b = await apiNode();
    expect(b.webhooks.key.publicDocument).toEqual(a.webhooks.key.publicDocument);
    const scan = completed(running('203.0.113.17'));
    await store().put(scan);
    await a.webhooks.register(scan.id, scan.ip, 'fast', hooks.url('/signed'));
    const [hook] = (await hooks.waitFor('/signed', 1)) as [ReceivedHook];
    expect(verifies(hook, a.webhooks.key.publicDocument.pem)).toBe(true); // sent by b, the only worker
  });

  it('sends again from another node within seconds when the node in the middle of an attempt is killed, however often', async () => {
    const hooks = await receiver();
    hooks.answer('/hang', { status: 200, delayMs: 120_000 }, { status: 200, delayMs: 120_000 }, 200);
    const config = { ...CONFIG, timeoutSeconds: 120 }; // only a death ends a hung attempt
    const taker = await apiNode({ work: false }); // the node that took the POST
    const first = await childNode(config);
    const scan = completed(running('203.0.113.18'));
    await store().put(scan);
    await taker.webhooks.register(scan.id, scan.ip, 'fast', hooks.url('/hang'));
    await hooks.waitFor('/hang', 1); // `first` is in the middle of its attempt

    const second = await childNode(config);
    await kill(first);
    let killedAt = Date.now();
    const [, again] = await hooks.waitFor('/hang', 2, 20_000);
    expect(again!.at - killedAt).toBeLessThan(15_000);

    const last = await apiNode({ config });
    await kill(second);
    killedAt = Date.now();
    const received = await hooks.waitFor('/hang', 3, 20_000);
    expect(received[2]!.at - killedAt).toBeLessThan(15_000);
    await eventually(() => attempts(last.logs).length > 0, 2000, 'the attempt logged');
    expect(attempts(last.logs)).toMatchObject([{ attempt: 3, outcome: 'delivered', willRetry: false }]);

    await sleep(500);
    expect(hooks.received).toHaveLength(3);
    expect(new Set(received.map((h) => h.headers['x-selfscan-delivery'])).size).toBe(1);
    expect(new Set(received.map((h) => h.body)).size).toBe(1);
  });
});
