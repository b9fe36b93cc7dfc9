// One contract for every ScanBook adapter (where scans in flight and their
// results are kept): memory over lmdb (the single process) and Redis (the
// cluster, on a redis-server of this file's own). A book starts one scan
// per (ip, scan type) and joins the rest to it; charges the scan limits
// only for a new scan and records nothing when they refuse; shows a scan
// in flight, then its final body; hands a watcher its first events, then
// every later one with a larger id, up to the end; and numbers first
// events so a resume after any id sent misses nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';

import type { RateLimitStore } from '../../src/limits/rate/rate-limit-store.js';
import { MemoryRateLimitStore } from '../../src/limits/rate/rate-limit-store.js';
import type { ScanAdmit } from '../../src/limits/rate/scan-admit.js';
import { Refusal } from '../../src/limits/refusal.js';
import { openLmdbStore } from '../../src/lmdb/lmdb-store.js';
import { InProcessScanEvents } from '../../src/memory/in-process-scan-events.js';
import { LocalScanEnds } from '../../src/memory/local-scan-ends.js';
import { MemoryScanBook } from '../../src/memory/memory-scan-book.js';
import type { ScanRecord } from '../../src/model/scan-record.js';
import { ClusterWatchers } from '../../src/redis/cluster-watchers.js';
import { RedisRateLimitStore } from '../../src/redis/redis-rate-limit-store.js';
import { RedisScanBook } from '../../src/redis/redis-scan-book.js';
import { RedisScanProgress } from '../../src/redis/redis-scan-progress.js';
import { RedisScanStarts } from '../../src/redis/redis-scan-starts.js';
import { RecordWriter } from '../../src/scan/record-writer.js';
import type { ResultStore } from '../../src/scan/result-store.js';
import { finalBody, progressBody } from '../../src/scan/result-view.js';
import type { ScanBook } from '../../src/scan/scan-book.js';
import type { StreamEvent } from '../../src/scan/scan-events.js';
import { redisPerFile } from '../helpers/redis-per-file.js';
import { completeRecord, queuedRecord } from '../helpers/scan-records.js';

const logger = pino({ level: 'silent' });
const redis = redisPerFile();
const closers: (() => unknown)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** A book, its rate limits, and how the scanner side moves a scan on (a chunk found, the end). */
interface Adapter {
  book: ScanBook;
  rateLimits: RateLimitStore;
  chunk(record: ScanRecord): Promise<void>;
  end(record: ScanRecord): Promise<void>;
}

const ADAPTERS: [string, () => Promise<Adapter>][] = [
  [
    'memory over lmdb',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'selfscan-book-'));
      const store: ResultStore = await openLmdbStore(dir);
      closers.push(
        () => store.close(),
        () => rmSync(dir, { recursive: true, force: true }),
      );
      const writer = new RecordWriter(store);
      const events = new InProcessScanEvents(logger);
      const ends = new LocalScanEnds(writer, events, logger);
      return {
        book: new MemoryScanBook(store, writer, events),
        rateLimits: new MemoryRateLimitStore(),
        chunk: async (record) => events.progress(record.id, () => progressBody(record)),
        end: async (record) => void (await ends.end(record, finalBody(record))),
      };
    },
  ],
  [
    'redis',
    async () => {
      const commands = redis();
      const progress = new RedisScanProgress(commands);
      const watchers = await ClusterWatchers.open(redis(), progress, logger);
      closers.push(() => watchers.close());
      return {
        book: new RedisScanBook(new RedisScanStarts(commands), progress, watchers),
        rateLimits: new RedisRateLimitStore(commands),
        chunk: async (record) => void (await progress.recordChunk(record.id, 0, { open: [], filtered: [], complete: true })),
        end: async (record) => void (await progress.end(record, finalBody(record))),
      };
    },
  ],
];

let nextHost = 1;
/** An address no other test of this file uses (Redis keys are shared by the file). */
const freshIp = (): string => `198.51.100.${nextHost++}`;

/** Scan limits of one scan per window for `key`: what Admission hands a start. */
function admitOne(adapter: Adapter, key: string): ScanAdmit & { charged: number } {
  const charges = [{ key, rule: { max: 1, windowSeconds: 600 } }];
  const admit = {
    charged: 0,
    charges,
    judge: (decisions: readonly { allowed: boolean }[]) => {
      admit.charged++;
      if (decisions.some((decision) => !decision.allowed)) throw new Refusal('rate_limited', `one scan per 600 s for ${key}`);
    },
    charge: async () => admit.judge(await adapter.rateLimits.charge(charges, Date.now())),
  };
  return admit;
}

function finished(record: ScanRecord): ScanRecord {
  const { id, ip, scanType, origin, queuedAt } = record;
  return completeRecord(ip, scanType, { id, origin, queuedAt });
}

describe.each(ADAPTERS)('ScanBook contract: %s', (_, open) => {
  it('starts one scan per ip and scan type and joins the rest to it, charging only the new scan', async () => {
    const adapter = await open();
    const { book } = adapter;
    const ip = freshIp();
    const records = Array.from({ length: 5 }, () => queuedRecord(ip, 'deep'));
    const admits = records.map(() => admitOne(adapter, `book|${ip}`));
    const begun = await Promise.all(records.map((record, i) => book.begin(record, admits[i])));
    const startedAt = begun.indexOf(null);
    expect(begun.filter((id) => id === null)).toHaveLength(1);
    expect(begun.filter((id) => id !== null)).toEqual(Array(4).fill(records[startedAt]!.id));
    expect(admits.reduce((sum, admit) => sum + admit.charged, 0)).toBe(1);
    expect(await book.inFlight(ip, 'deep')).toBe(records[startedAt]!.id);
    expect(await book.inFlight(ip, 'fast')).toBeNull();
    expect(await book.begin(queuedRecord(ip, 'fast'))).toBeNull(); // another scan type: another scan
  });

  it('records nothing when the scan limits refuse, and starts the next scan the limits allow', async () => {
    const adapter = await open();
    const { book } = adapter;
    const ip = freshIp();
    const key = `refuse|${ip}`;
    const first = queuedRecord(ip, 'deep');
    expect(await book.begin(first, admitOne(adapter, key))).toBeNull();
    await adapter.end(finished(first));
    await expect(book.begin(queuedRecord(ip, 'deep'), admitOne(adapter, key))).rejects.toBeInstanceOf(Refusal);
    expect(await book.inFlight(ip, 'deep')).toBeNull();
    expect(await book.read(ip, 'deep')).toMatchObject({ final: { body: { status: 'complete' } } });
    expect(await book.begin(queuedRecord(ip, 'deep'), admitOne(adapter, `other|${ip}`))).toBeNull();
  });

  it('shows a scan in flight, then its final body until it expires', async () => {
    const adapter = await open();
    const { book } = adapter;
    const ip = freshIp();
    expect(await book.read(ip, 'fast')).toBeNull();
    const record = queuedRecord(ip, 'fast');
    await book.begin(record);
    expect(await book.read(ip, 'fast')).toMatchObject({ inFlight: { id: record.id, ip, scanType: 'fast', status: 'queued' } });
    const final = finished(record);
    await adapter.end(final);
    const read = await book.read(ip, 'fast');
    expect(read).toEqual({ final: { body: finalBody(final), expiresAt: final.expiresAt } });
    const peeked = book.peek(ip, 'fast');
    if (peeked !== undefined) expect(peeked).toEqual(read); // a book may answer from memory, never otherwise
    expect(await book.inFlight(ip, 'fast')).toBeNull();
  });

  it('hands a watcher its first events, then every later one with a larger id, up to the end', async () => {
    const adapter = await open();
    const { book } = adapter;
    const ip = freshIp();
    const record = queuedRecord(ip, 'deep');
    await book.begin(record);
    const heard: StreamEvent[] = [];
    const watch = await book.follow(
      record.id,
      ip,
      'deep',
      (event) => heard.push(event),
      (seen) => {
        expect(seen.id).toBe(record.id);
        return [{ name: 'scan:queued', data: { first: true } }];
      },
    );
    expect(watch).not.toBeNull();
    expect(watch!.initial).toMatchObject([{ name: 'scan:queued', data: { first: true }, terminal: false }]);
    await adapter.chunk(record);
    const final = finished(record);
    await adapter.end(final);
    await expect.poll(() => heard.at(-1)?.name, { timeout: 3000 }).toBe('scan:complete');
    expect(heard.map((event) => event.name)).toEqual(['scan:progress', 'scan:complete']);
    expect(heard.at(-1)).toMatchObject({ data: finalBody(final), terminal: true });
    expect(heard[0]!.id).toBeGreaterThan(watch!.initial[0]!.id);
    expect(heard[1]!.id).toBeGreaterThan(heard[0]!.id);

    // A second watcher of the ended scan: nothing to follow.
    expect(
      await book.follow(
        record.id,
        ip,
        'deep',
        () => {},
        () => [],
      ),
    ).toBeNull();
    watch!.unsubscribe();
  });

  it('numbers a late watcher’s first events after every event sent, so a resume misses nothing', async () => {
    const adapter = await open();
    const { book } = adapter;
    const ip = freshIp();
    const record = queuedRecord(ip, 'deep');
    await book.begin(record);
    const early: StreamEvent[] = [];
    const first = await book.follow(
      record.id,
      ip,
      'deep',
      (event) => early.push(event),
      () => [{ name: 'scan:queued', data: {} }],
    );
    await adapter.chunk(record);
    await expect.poll(() => early.length, { timeout: 3000 }).toBe(1);
    const sent = Math.max(first!.initial[0]!.id, early[0]!.id);
    let sequence = -1;
    const late = await book.follow(
      record.id,
      ip,
      'deep',
      () => {},
      (_, given) => {
        sequence = given;
        return [];
      },
    );
    expect(sequence).toBeGreaterThanOrEqual(sent);
    late!.unsubscribe();
    first!.unsubscribe();
    await adapter.end(finished(record));
  });
});
