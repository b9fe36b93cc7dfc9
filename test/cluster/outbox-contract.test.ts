// One contract for every webhook Outbox adapter: lmdb (the single process,
// sending from itself) and Redis with BullMQ (the cluster, on a
// redis-server of this file's own), each sending to a real receiver on
// loopback. An outbox keeps a registration by scan until it is due, across
// a restart; sends a due delivery once, signed, however often it is made
// due; retries a 5xx on the schedule with the same id and bytes, then gives
// up; and sends after a restart what was due before it.
import { createPublicKey, randomUUID, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';

import type { Config } from '../../src/config/config.js';
import { LmdbOutbox } from '../../src/lmdb/lmdb-outbox.js';
import { RedisOutbox } from '../../src/redis/redis-outbox.js';
import type { Outbox, Registration } from '../../src/webhook/outbox.js';
import { SigningKey } from '../../src/webhook/signing-key.js';
import type { DueDelivery } from '../../src/webhook/webhook-attempt.js';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.js';
import { redisPerFile } from '../helpers/redis-per-file.js';

const CONFIG: Config['webhooks'] = { retryDelaysSeconds: [0.2, 0.4], timeoutSeconds: 2 };
const KEY = SigningKey.fromPem(SigningKey.generatePem());
const ATTEMPT = { key: KEY, userAgent: 'selfscan/test', allowPrivateCallbacks: true, timeoutSeconds: CONFIG.timeoutSeconds, logger: pino({ level: 'silent' }) };

const redis = redisPerFile();
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Opens an outbox on the adapter's storage; each call after the first is a restart on the same storage. */
type Storage = () => Promise<Outbox>;

interface Adapter {
  /** A fresh storage (lmdb: a data dir of its own; Redis: the file's server). */
  storage(): Storage;
  /** Whether leftWaiting() names the registrations an earlier process left (Redis: finish jobs redo every end instead). */
  reportsLeftWaiting: boolean;
}

const ADAPTERS: [string, Adapter][] = [
  [
    'lmdb',
    {
      storage: () => {
        const dir = mkdtempSync(join(tmpdir(), 'selfscan-outbox-'));
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        return () => LmdbOutbox.open(dir, { attempt: ATTEMPT, retryDelaysSeconds: CONFIG.retryDelaysSeconds });
      },
      reportsLeftWaiting: true,
    },
  ],
  [
    'redis',
    {
      storage: () => () => RedisOutbox.open({ redis: redis(), redisUrl: redis.url(), config: CONFIG, attempt: ATTEMPT, logger: ATTEMPT.logger, work: true }),
      reportsLeftWaiting: false,
    },
  ],
];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(() => started.close());
  return started;
}

/** Opens an outbox, closed after the test unless the test closed it. */
async function opened(storage: Storage): Promise<Outbox> {
  const outbox = await storage();
  let closed = false;
  const close = outbox.close.bind(outbox);
  outbox.close = () => {
    closed = true;
    return close();
  };
  cleanups.push(() => (closed ? undefined : close()));
  return outbox;
}

function registration(url: string, scanId: string = randomUUID()): Registration {
  return { id: randomUUID(), scanId, ip: '203.0.113.7', scanType: 'fast', url };
}

function deliveryOf(registered: Registration, body = `{"event":"scan.complete","scan":"${registered.scanId}"}`): DueDelivery {
  return { id: registered.id, scanId: registered.scanId, url: registered.url, event: 'scan.complete', body };
}

describe.each(ADAPTERS)('Outbox contract: %s', (_, adapter) => {
  it('keeps a registration by scan until it is due, across a restart', async () => {
    const storage = adapter.storage();
    const outbox = await opened(storage);
    const first = registration('http://127.0.0.1:9/a');
    const other = registration('http://127.0.0.1:9/b');
    const second = registration('http://127.0.0.1:9/c', first.scanId);
    for (const r of [first, other, second]) await outbox.register(r);
    const byId = (list: Registration[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(await outbox.registrations(first.scanId))).toEqual(byId([first, second]));
    expect(await outbox.registrations(randomUUID())).toEqual([]);
    await outbox.close();

    const restarted = await opened(storage);
    expect(byId(await restarted.registrations(first.scanId))).toEqual(byId([first, second]));
    const left = await restarted.leftWaiting();
    if (adapter.reportsLeftWaiting) expect(byId(left)).toEqual(byId([first, other, second]));
    else expect(left).toEqual([]);
  });

  it('sends a due delivery once, signed, however often it is made due', async () => {
    const hooks = await receiver();
    const outbox = await opened(adapter.storage());
    const registered = registration(hooks.url('/once'));
    await outbox.register(registered);
    const delivery = deliveryOf(registered);
    await Promise.all([outbox.due([delivery]), outbox.due([delivery]), outbox.due([{ ...delivery, body: '{"other":true}' }])]);
    const [hook] = await hooks.waitFor('/once', 1);
    await outbox.due([delivery]); // a finish redone after the delivery
    await sleep(500);
    expect(hooks.received).toHaveLength(1);
    expect(hook!.headers['x-selfscan-delivery']).toBe(registered.id);
    expect(hook!.headers['x-selfscan-event']).toBe('scan.complete');
    expect(hook!.body).toBe(delivery.body);
    const signed = Buffer.from(`${hook!.headers['x-selfscan-timestamp']}.${hook!.body}`);
    const signature = Buffer.from(String(hook!.headers['x-selfscan-signature']), 'base64');
    expect(verify(null, signed, createPublicKey(KEY.publicDocument.pem), signature)).toBe(true);
  });

  it('retries a 5xx on the schedule with the same id and bytes, then gives up', async () => {
    const hooks = await receiver();
    hooks.answer('/fails', 503);
    const outbox = await opened(adapter.storage());
    const registered = registration(hooks.url('/fails'));
    await outbox.register(registered);
    await outbox.due([deliveryOf(registered)]);
    const tries = await hooks.waitFor('/fails', 3);
    await sleep(900);
    expect(hooks.received).toHaveLength(3); // one attempt and a retry per delay
    expect(new Set(tries.map((hook) => hook.headers['x-selfscan-delivery']))).toEqual(new Set([registered.id]));
    expect(new Set(tries.map((hook) => hook.body)).size).toBe(1);
    expect(tries[1]!.at - tries[0]!.at).toBeGreaterThanOrEqual(190);
    expect(tries[2]!.at - tries[1]!.at).toBeGreaterThanOrEqual(390);
  });

  it('sends after a restart what was due before it', async () => {
    const hooks = await receiver();
    hooks.answer('/later', 503, 200);
    const storage = adapter.storage();
    const outbox = await opened(storage);
    const registered = registration(hooks.url('/later'));
    await outbox.register(registered);
    await outbox.due([deliveryOf(registered)]);
    await hooks.waitFor('/later', 1);
    await outbox.close(); // before the retry is due
    await opened(storage);
    const [failed, delivered] = await hooks.waitFor('/later', 2);
    expect(delivered!.headers['x-selfscan-delivery']).toBe(failed!.headers['x-selfscan-delivery']);
    expect(delivered!.body).toBe(failed!.body);
  });
});
