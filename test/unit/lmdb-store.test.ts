// The lmdb ResultStore against a real environment in a fresh temp dir.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { type LmdbResultStore, openLmdbStore } from '../../src/lmdb/lmdb-store.js';
import type { ScanRecord } from '../../src/model/scan-record.js';
import { completeRecord } from '../helpers/scan-records.js';

const CHILD = fileURLToPath(new URL('./children/store-child.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

function record(overrides: Partial<ScanRecord> = {}): ScanRecord {
  return completeRecord('192.0.2.7', 'fast', {
    id: 'scan-1',
    origin: 'v2',
    queuedAt: 1_750_000_000_000,
    startedAt: 1_750_000_000_250,
    completedAt: 1_750_000_004_000,
    expiresAt: 1_750_086_404_000,
    ...overrides,
  });
}

describe('LmdbResultStore', () => {
  let tempDir: string;
  let dataDir: string;
  let store: LmdbResultStore | undefined;

  async function openStore(): Promise<LmdbResultStore> {
    store = await openLmdbStore(dataDir);
    return store;
  }

  beforeEach(() => {
    tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'selfscan-lmdb-'));
    dataDir = tempDir;
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    fs.rmSync(tempDir, { recursive: true, force: true });
  });

  it('creates a missing data dir and returns null for an unknown record', async () => {
    dataDir = path.join(tempDir, 'nested', 'data');
    const s = await openStore();
    expect(fs.existsSync(dataDir)).toBe(true);
    expect(await s.get('192.0.2.7', 'fast')).toBeNull();
  });

  it('round-trips a full record exactly', async () => {
    const s = await openStore();
    const full = record();
    await s.put(full);
    expect(await s.get(full.ip, full.scanType)).toStrictEqual(full);
  });

  it('round-trips a record of nulls and empty port lists', async () => {
    const s = await openStore();
    const queued = record({
      status: 'queued',
      startedAt: null,
      completedAt: null,
      expiresAt: null,
      durationMs: null,
      chunksComplete: 0,
      portsOpen: [],
      portsFiltered: [],
      ptrRecord: null,
    });
    await s.put(queued);
    expect(await s.get(queued.ip, queued.scanType)).toStrictEqual(queued);
  });

  it('replaces the record of the same ip and type with the newer one', async () => {
    const s = await openStore();
    await s.put(record({ id: 'old', status: 'running' }));
    const newer = record({ id: 'new', status: 'failed', failReason: 'interrupted', portsOpen: [] });
    await s.put(newer);
    expect(await s.get(newer.ip, 'fast')).toStrictEqual(newer);
    expect(await s.unfinished()).toEqual([]);
  });

  it('keeps fast and deep of one ip apart, for IPv4 and IPv6', async () => {
    const s = await openStore();
    const records = ['192.0.2.7', '2001:db8::7'].flatMap((ip) => [
      record({ id: `fast-${ip}`, ip, scanType: 'fast', totalChunks: 4 }),
      record({ id: `deep-${ip}`, ip, scanType: 'deep', totalChunks: 64, chunksComplete: 64 }),
    ]);
    for (const r of records) await s.put(r);
    for (const r of records) expect(await s.get(r.ip, r.scanType)).toStrictEqual(r);
    expect(await s.get('2001:db8::8', 'fast')).toBeNull();
  });

  it('lists only queued and running records as unfinished', async () => {
    const s = await openStore();
    const queued = record({ id: 'q', ip: '192.0.2.1', status: 'queued' });
    const running = record({ id: 'r', ip: '2001:db8::2', scanType: 'deep', status: 'running' });
    await s.put(queued);
    await s.put(running);
    await s.put(record({ id: 'c', ip: '192.0.2.3', status: 'complete' }));
    await s.put(record({ id: 'i', ip: '192.0.2.4', status: 'incomplete' }));
    await s.put(record({ id: 'f', ip: '192.0.2.5', status: 'failed', failReason: 'unreachable' }));
    const unfinished = await s.unfinished();
    expect(unfinished.map((r) => r.id).sort()).toEqual(['q', 'r']);
    expect(unfinished.find((r) => r.id === 'r')).toStrictEqual(running);
  });

  it('deletes records expiring at or before now, keeping later ones and those that never expire', async () => {
    const s = await openStore();
    const now = 1_750_100_000_000;
    await s.put(record({ id: 'before', ip: '192.0.2.1', expiresAt: now - 1 }));
    await s.put(record({ id: 'at', ip: '2001:db8::2', expiresAt: now }));
    const after = record({ id: 'after', ip: '192.0.2.3', expiresAt: now + 1 });
    const never = record({ id: 'never', ip: '192.0.2.4', status: 'running', expiresAt: null });
    await s.put(after);
    await s.put(never);
    expect(await s.deleteExpired(now)).toBe(2);
    expect(await s.get('192.0.2.1', 'fast')).toBeNull();
    expect(await s.get('2001:db8::2', 'fast')).toBeNull();
    expect(await s.get(after.ip, 'fast')).toStrictEqual(after);
    expect(await s.get(never.ip, 'fast')).toStrictEqual(never);
    expect(await s.deleteExpired(now)).toBe(0);
  });

  it('keeps its records across close and reopen', async () => {
    const first = await openStore();
    const full = record();
    const queued = record({ id: 'q', scanType: 'deep', status: 'queued', expiresAt: null });
    await first.put(full);
    await first.put(queued);
    await first.close();
    store = undefined;
    const second = await openStore();
    expect(await second.get(full.ip, 'fast')).toStrictEqual(full);
    expect(await second.unfinished()).toStrictEqual([queued]);
  });

  it('keeps a record whose put resolved before the process was killed', async () => {
    const stored = record({ id: 'crash', ip: '2001:db8::9', status: 'running', completedAt: null });
    const { stdout, signal } = await new Promise<{ stdout: string; signal: NodeJS.Signals | null }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', CHILD, dataDir, JSON.stringify(stored)], { cwd: PROJECT_ROOT }, (error, out) => {
        resolve({ stdout: out, signal: error?.signal ?? null });
      });
    });
    expect(signal).toBe('SIGKILL');
    expect(stdout).toBe('stored\n');
    const s = await openStore();
    expect(await s.get(stored.ip, 'fast')).toStrictEqual(stored);
  }, 30_000);
});
