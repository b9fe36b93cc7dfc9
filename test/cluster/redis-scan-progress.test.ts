// A scan's stored progress, on a redis-server of the test's own: chunks
// recorded once however often a job is delivered, each change published
// with the next sequence number, a poll's view in one read, the end once.
import { describe, expect, it } from 'vitest';

import type { ScanRecord } from '../../src/model/scan-record.js';
import { EVENTS_CHANNEL } from '../../src/redis/redis-keys.js';
import { RedisScanProgress } from '../../src/redis/redis-scan-progress.js';
import { RedisScanStarts } from '../../src/redis/redis-scan-starts.js';
import { parseScanEventMessage, type ScanEventMessage } from '../../src/redis/scan-event-message.js';
import { finalBody } from '../../src/scan/result-view.js';
import { redisPerFile } from '../helpers/redis-per-file.js';
import { queuedRecord } from '../helpers/scan-records.js';

const connect = redisPerFile();
const OPEN = { port: 22, state: 'open' as const, service: 'ssh', banner: null };

async function listen(): Promise<ScanEventMessage[]> {
  const subscriber = connect();
  const messages: ScanEventMessage[] = [];
  subscriber.on('message', (_channel: string, text: string) => messages.push(parseScanEventMessage(text)));
  await subscriber.subscribe(EVENTS_CHANNEL);
  return messages;
}

async function started(ip: string): Promise<{ progress: RedisScanProgress; record: ScanRecord }> {
  const redis = connect();
  const record = { ...queuedRecord(ip, 'fast'), region: 'NL' };
  expect((await new RedisScanStarts(redis).start(record, [])).kind).toBe('started');
  return { progress: new RedisScanProgress(redis), record };
}

describe('RedisScanProgress', () => {
  it('records a chunk once however often it is delivered, and numbers each change', async () => {
    const messages = await listen();
    const { progress, record } = await started('203.0.113.40');
    await progress.running(record.id);
    await progress.running(record.id); // a second job starting changes nothing
    const chunk = { open: [OPEN], filtered: [], complete: true };
    expect(await progress.recordChunk(record.id, 0, chunk)).toEqual({ outcome: 'recorded', done: 1, total: 4 });
    expect(await progress.recordChunk(record.id, 0, chunk)).toEqual({ outcome: 'duplicate', done: 1, total: 4 });
    expect(await progress.recordChunk(record.id, 1, { open: [], filtered: [], complete: false })).toEqual({ outcome: 'recorded', done: 2, total: 4 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const mine = messages.filter((m) => m.scanId === record.id);
    expect(mine.map((m) => [m.kind, m.seq])).toEqual([
      ['running', 2],
      ['chunk', 3],
      ['chunk', 4],
    ]);
    const snapshot = (await progress.snapshot(record.id, record.ip, 'fast'))!;
    expect(snapshot).toMatchObject({ seq: 4, ended: false, record: { status: 'running', chunksComplete: 1, portsOpen: [OPEN] } });
    expect(await progress.current(record.ip, 'fast')).toMatchObject({ id: record.id, status: 'running', chunksComplete: 1 });
  });

  it('ends a scan once, clearing its in-flight mark; a poll then reads the final record', async () => {
    const messages = await listen();
    const { progress, record } = await started('203.0.113.41');
    expect(await progress.current(record.ip, 'fast')).toMatchObject({ id: record.id, status: 'queued', chunksComplete: 0 });
    const final: ScanRecord = { ...record, status: 'complete', chunksComplete: 4, completedAt: Date.now(), expiresAt: Date.now() + 60_000 };
    expect(await progress.end(final, finalBody(final))).toBe(true);
    expect(await progress.end(final, finalBody(final))).toBe(false);
    expect(await progress.inFlight(record.ip, 'fast')).toBeNull();
    expect(await progress.current(record.ip, 'fast')).toMatchObject({ id: record.id, status: 'complete' });
    expect(await progress.recordChunk(record.id, 2, { open: [], filtered: [], complete: true })).toMatchObject({ outcome: 'ended' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(messages.filter((m) => m.scanId === record.id && m.kind === 'end')).toHaveLength(1);
  });

  it('reads nothing for an address never scanned', async () => {
    expect(await new RedisScanProgress(connect()).current('203.0.113.42', 'deep')).toBeNull();
  });
});
