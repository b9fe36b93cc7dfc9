// Scans in one process (service, memory queue, event bus, runner) with a
// fake scanner, an in-memory store and an injected clock.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

import { ShuttingDownError } from '../../src/memory/memory-scan-book.js';
import { queuedRecord, type ScanRecord } from '../../src/model/scan-record.js';
import { openLocalScans } from '../../src/roles/local-scans.js';
import { startExpirySweep } from '../../src/scan/expiry-sweep.js';
import type { StreamEvent } from '../../src/scan/scan-events.js';
import { RESULT_TTL_MS } from '../../src/scan/scan-finisher.js';
import { recoverUnfinished } from '../../src/scan/scan-recovery.js';
import { FakeScanner, openPort } from '../helpers/fake-scanner.js';
import { MemoryCheckpoints } from '../helpers/memory-checkpoints.js';
import { MemoryStore } from '../helpers/memory-store.js';

const IP = '203.0.113.10';

function setup(options: { concurrency?: number; ptr?: string | null } = {}) {
  const scanner = new FakeScanner();
  const store = new MemoryStore();
  const checkpoints = new MemoryCheckpoints();
  let now = Date.UTC(2026, 10, 21, 12, 0, 0);
  const clock = { now: () => now };
  const logger = pino({ level: 'silent' });
  /** The ends the webhooks heard of, by scan id. */
  const webhooksHeard: string[] = [];
  const webhooks = { scanFinished: async (record: ScanRecord) => void webhooksHeard.push(record.id) };
  const open = () => {
    const scans = openLocalScans({
      scanner,
      udpScanner: scanner,
      store,
      logger,
      clock,
      concurrency: { fast: options.concurrency ?? 4, deep: options.concurrency ?? 4, udp: options.concurrency ?? 4 },
      budgetMs: { fast: 60_000, deep: 600_000, udp: 60_000 },
      lookupPtr: async () => options.ptr ?? null,
      checkpoints,
      webhooks,
    });
    return { service: scans.service, events: scans.events, drain: scans.drain, resume: scans.resume };
  };
  return { scanner, store, checkpoints, clock, logger, open, webhooksHeard, advance: (ms: number) => (now += ms), now: () => now };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('local scans', () => {
  it('walks a scan through queued, running and complete with the spec shapes', async () => {
    const { scanner, store, open, advance, now, webhooksHeard } = setup({ ptr: 'host.example.net' });
    const { service } = open();
    expect(await service.result(IP, 'fast')).toEqual({ ip: IP, scan_type: 'fast', status: 'none' });

    const started = await service.start(IP, 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    expect(started.coalesced).toBe(false);
    expect(started.body).toMatchObject({ ip: IP, scan_type: 'fast', status: 'queued', chunks_complete: 0, total_chunks: 4 });
    expect(store.records.get(`fast|${IP}`)?.id).toBeDefined(); // stored before it answered

    const fake = scanner.scans[0]!;
    expect(fake.request).toMatchObject({ ip: IP, chunkSize: 8, budgetMs: 60_000 });
    expect(fake.request.ports).toHaveLength(32);
    fake.chunk({ index: 0, total: 4, open: [openPort(22, 'SSH-2.0-x')] });
    expect(await service.result(IP, 'fast')).toMatchObject({ status: 'running', queue_position: 0, chunks_complete: 1, total_chunks: 4 });

    advance(5000);
    fake.chunk({ index: 1, total: 4, open: [openPort(25, '220 mail')], filtered: [{ port: 23, state: 'filtered', service: 'telnet', banner: null }] });
    fake.chunk({ index: 2, total: 4 });
    fake.chunk({ index: 3, total: 4, open: [openPort(80)] });
    fake.complete('complete', 4321);
    await flush();

    const result = await service.result(IP, 'fast');
    expect(result).toEqual({
      ip: IP,
      scan_type: 'fast',
      status: 'complete',
      ports_open: [openPort(22, 'SSH-2.0-x'), openPort(25, '220 mail'), openPort(80)],
      ports_filtered: [{ port: 23, state: 'filtered', service: 'telnet', banner: null }],
      service_banners: { '22': 'SSH-2.0-x', '25': '220 mail' },
      ptr_record: 'host.example.net',
      duration_ms: 5000, // from its start to its end by the clock, not the sweep's own 4321
      completed_at: Math.floor(now() / 1000),
      expires_at: Math.floor(now() / 1000) + 86400,
    });
    expect(webhooksHeard).toEqual([started.scanId]); // once, after the end was stored
    expect(store.records.get(`fast|${IP}`)?.status).toBe('complete');
  });

  it('coalesces 1,000 concurrent starts onto one scan', async () => {
    const { scanner, open } = setup();
    const { service } = open();
    const results = await Promise.all(Array.from({ length: 1000 }, () => service.start(IP, 'deep', 'v1')));
    await flush(); // scans start on the next turn of the event loop
    expect(scanner.scans).toHaveLength(1);
    expect(results.filter((r) => !r.coalesced)).toHaveLength(1);
    for (const joined of results.filter((r) => r.coalesced)) {
      expect(joined.body).toMatchObject({ chunks_complete: 0, total_chunks: 64 });
      expect(['queued', 'running']).toContain(joined.body.status);
    }
    // Fast and deep of one address are different scans.
    await service.start(IP, 'fast', 'v2');
    await flush(); // scans start on the next turn of the event loop
    expect(scanner.scans).toHaveLength(2);
  });

  it('queues beyond its concurrency and reports queue positions', async () => {
    const { scanner, open } = setup({ concurrency: 1 });
    const { service } = open();
    await service.start('203.0.113.1', 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    await service.start('203.0.113.2', 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    await service.start('203.0.113.3', 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    expect(scanner.scans).toHaveLength(1);
    expect(await service.result('203.0.113.2', 'fast')).toMatchObject({ status: 'queued', queue_position: 0 });
    expect(await service.result('203.0.113.3', 'fast')).toMatchObject({ status: 'queued', queue_position: 1 });
    scanner.scans[0]!.complete();
    await flush();
    await flush(); // the next scan starts on the turn after
    expect(scanner.scans).toHaveLength(2);
    expect(scanner.scans[1]!.request.ip).toBe('203.0.113.2');
    expect(await service.result('203.0.113.3', 'fast')).toMatchObject({ status: 'queued', queue_position: 0 });
  });

  it('answers a burst of starts before it runs their scans, and runs them a few per turn', async () => {
    const { scanner, open } = setup({ concurrency: 64 });
    const { service } = open();
    const starts = await Promise.all(Array.from({ length: 40 }, (_, i) => service.start(`203.0.113.${i + 1}`, 'fast', 'v1')));
    expect(starts.map((s) => s.body.status)).toEqual(Array(40).fill('queued'));
    expect(scanner.scans).toHaveLength(0);
    const perTurn: number[] = [];
    while (scanner.scans.length < 40 && perTurn.length < 10) {
      const before = scanner.scans.length;
      await flush();
      perTurn.push(scanner.scans.length - before);
    }
    expect(perTurn).toEqual([16, 16, 8]);
  });

  it('learns eta_seconds from finished scans', async () => {
    const { scanner, open, advance } = setup({ concurrency: 1 });
    const { service } = open();
    await service.start('203.0.113.1', 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    advance(3000);
    scanner.scans[0]!.complete();
    await flush();
    expect((await service.start('203.0.113.2', 'fast', 'v1')).body.eta_seconds).toBe(3);
    expect((await service.start('203.0.113.3', 'fast', 'v1')).body.eta_seconds).toBe(6);
  });

  it('forgets results 24 hours after completion', async () => {
    const { scanner, open, advance } = setup();
    const { service } = open();
    await service.start(IP, 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    scanner.scans[0]!.complete();
    await flush();
    advance(RESULT_TTL_MS - 1000);
    expect((await service.result(IP, 'fast')).status).toBe('complete');
    advance(1000);
    expect((await service.result(IP, 'fast')).status).toBe('none');
  });

  it('deletes expired results from the store on its sweep, and only those', async () => {
    const { scanner, store, clock, logger, open, advance } = setup();
    const { service } = open();
    await service.start('203.0.113.1', 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    scanner.scans[0]!.complete();
    await flush();
    advance(RESULT_TTL_MS / 2);
    await service.start('203.0.113.2', 'fast', 'v1');
    await flush();
    scanner.scans[1]!.complete();
    await flush();
    advance(RESULT_TTL_MS / 2);
    const stop = startExpirySweep({ results: store }, clock, logger, 5);
    try {
      while (store.records.size > 1) await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      stop();
    }
    expect([...store.records.values()].map((r) => r.ip)).toEqual(['203.0.113.2']);
  });

  it('reports an incomplete scan as partial', async () => {
    const { scanner, open } = setup();
    const { service } = open();
    await service.start(IP, 'deep', 'v1');
    await flush(); // scans start on the next turn of the event loop
    scanner.scans[0]!.chunk({ index: 0, total: 64, open: [openPort(22)] });
    scanner.scans[0]!.complete('incomplete');
    await flush();
    expect(await service.result(IP, 'deep')).toMatchObject({
      status: 'incomplete',
      partial: true,
      chunks_complete: 1,
      total_chunks: 64,
      ports_open: [openPort(22)],
    });
  });

  it('fails scans the scanner cannot run, with a reason', async () => {
    const { scanner, open } = setup();
    const { service } = open();
    await service.start(IP, 'fast', 'v1');
    await flush(); // scans start on the next turn of the event loop
    scanner.scans[0]!.fail(Object.assign(new Error('connect ENETUNREACH'), { code: 'ENETUNREACH' }));
    await flush();
    expect(await service.result(IP, 'fast')).toEqual({
      ip: IP,
      scan_type: 'fast',
      status: 'failed',
      chunks_complete: 0,
      total_chunks: 4,
      fail_reason: 'unreachable',
    });

    scanner.throwOnScan = new TypeError('boom');
    await service.start(IP, 'deep', 'v1');
    await flush();
    expect(await service.result(IP, 'deep')).toMatchObject({ status: 'failed', fail_reason: 'scanner_error' });
  });

  it('streams queued, progress and a terminal event with increasing ids', async () => {
    const { scanner, open } = setup();
    const { service } = open();
    const seen: StreamEvent[] = [];
    const started = await service.start(IP, 'fast', 'v2', (event) => seen.push(event));
    await flush(); // scans start on the next turn of the event loop
    const events = [...started.initial, ...seen.splice(0)];
    expect(events.map((e) => e.name)).toEqual(['scan:queued', 'scan:progress']);
    scanner.scans[0]!.chunk({ index: 0, total: 4, open: [openPort(443)] });
    scanner.scans[0]!.complete();
    await flush();
    events.push(...seen);
    expect(events.map((e) => e.name)).toEqual(['scan:queued', 'scan:progress', 'scan:progress', 'scan:complete']);
    const ids = events.map((e) => e.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(4);
    expect(events[2]!.data).toMatchObject({ chunks_complete: 1, ports_open: [openPort(443)], filtered_count: 0 });
    expect(events[3]!.terminal).toBe(true);
  });

  it('on drain, ends what is still in flight as interrupted and refuses new scans', async () => {
    const { scanner, open } = setup({ concurrency: 1 });
    const { service, drain } = open();
    const seen: StreamEvent[] = [];
    await service.start('203.0.113.1', 'deep', 'v2', (e) => seen.push(e));
    await flush(); // scans start on the next turn of the event loop
    await service.start('203.0.113.2', 'deep', 'v1');
    await flush(); // scans start on the next turn of the event loop
    await drain(10);
    expect(scanner.scans[0]!.cancelled).toBe(true);
    expect(seen.at(-1)).toMatchObject({ name: 'scan:failed', data: { fail_reason: 'interrupted' } });
    expect(await service.result('203.0.113.2', 'deep')).toMatchObject({ status: 'failed', fail_reason: 'interrupted' });
    await expect(service.start(IP, 'fast', 'v1')).rejects.toBeInstanceOf(ShuttingDownError);
  });
});

describe('scans a crash left unfinished', () => {
  const DEEP_CHUNK = 1024;

  /** A deep scan of IP that ran from `startedAt` until a crash, with chunks 0 to `saved` - 1 saved. */
  async function leftRunning(context: ReturnType<typeof setup>, startedAt: number, saved: number): Promise<ScanRecord> {
    const record: ScanRecord = { ...queuedRecord('left', IP, 'deep', 'v1', startedAt - 10), status: 'running', startedAt };
    await context.store.put(record);
    for (let index = 0; index < saved; index++) {
      await context.checkpoints.save(record.id, index, { open: index === 3 ? [openPort(3 * DEEP_CHUNK + 7, 'early')] : [], filtered: [] });
    }
    return record;
  }

  function recover(context: ReturnType<typeof setup>, resume: (record: ScanRecord) => void): Promise<void> {
    return recoverUnfinished(context.store, context.checkpoints, resume, context.logger);
  }

  it('resumes a deep scan from its saved chunks: only the others are scanned, chunk indexes kept, findings merged', async () => {
    const context = setup();
    await leftRunning(context, context.now() - 1000, 10);
    await context.checkpoints.save('gone', 0, { open: [], filtered: [] }); // a scan that ended: forgotten at start
    const { service, resume } = context.open();
    await recover(context, resume);
    expect([...context.checkpoints.scans.keys()]).toEqual(['left']);
    expect(await service.result(IP, 'deep')).toMatchObject({ status: 'running', chunks_complete: 10, total_chunks: 64 });

    const seen: StreamEvent[] = [];
    await service.watch(IP, 'deep', (event) => seen.push(event));
    await flush();
    await flush();
    const fake = context.scanner.scans[0]!;
    expect(fake.request.ports).toHaveLength(65535 - 10 * DEEP_CHUNK);
    expect(fake.request.ports[0]).toBe(10 * DEEP_CHUNK + 1);
    expect(fake.request).toMatchObject({ chunkSize: DEEP_CHUNK, budgetMs: 600_000 - 1000 });

    fake.chunk({ index: 0, total: 54, open: [openPort(10 * DEEP_CHUNK + 5, 'late')] }); // the scan's chunk 10
    expect(await service.result(IP, 'deep')).toMatchObject({ chunks_complete: 10 }); // counted once saved
    await flush();
    expect(await service.result(IP, 'deep')).toMatchObject({ chunks_complete: 11 });
    expect(context.checkpoints.scans.get('left')?.has(10)).toBe(true);
    expect(seen.at(-1)).toMatchObject({ name: 'scan:progress', data: { chunk_index: 10, chunks_complete: 11 } });
    for (let k = 1; k < 54; k++) fake.chunk({ index: k, total: 54 });
    fake.complete('complete', 50);
    await flush();
    await flush();
    expect(await service.result(IP, 'deep')).toMatchObject({
      status: 'complete',
      ports_open: [openPort(3 * DEEP_CHUNK + 7, 'early'), openPort(10 * DEEP_CHUNK + 5, 'late')],
      duration_ms: 1000, // since it first started
    });
    expect(seen.filter((e) => e.name === 'scan:progress').map((e) => (e.data as { chunk_index?: number }).chunk_index)).toEqual([
      undefined, // running again
      ...Array.from({ length: 54 }, (_, k) => 10 + k),
    ]);
    expect(context.checkpoints.scans.has('left')).toBe(false);
  });

  it('ends a resumed scan past its budget incomplete, with what its saved chunks found', async () => {
    const context = setup();
    await leftRunning(context, context.now() - 600_001, 10);
    const { service, resume } = context.open();
    await recover(context, resume);
    await flush();
    await flush();
    expect(context.scanner.scans).toHaveLength(0);
    expect(await service.result(IP, 'deep')).toMatchObject({
      status: 'incomplete',
      partial: true,
      chunks_complete: 10,
      total_chunks: 64,
      ports_open: [openPort(3 * DEEP_CHUNK + 7, 'early')],
    });
  });

  it('ends a resumed scan whose chunks were all saved complete, without scanning', async () => {
    const context = setup();
    await leftRunning(context, context.now() - 600_001, 64);
    const { service, resume } = context.open();
    await recover(context, resume);
    await flush();
    await flush();
    expect(context.scanner.scans).toHaveLength(0);
    expect(await service.result(IP, 'deep')).toMatchObject({ status: 'complete', ports_open: [openPort(3 * DEEP_CHUNK + 7, 'early')] });
  });

  it('queues again a scan left queued, and runs a fast scan left running from the start', async () => {
    const context = setup();
    await context.store.put(queuedRecord('queued', IP, 'deep', 'v1', context.now() - 50));
    await context.store.put({ ...queuedRecord('fast', IP, 'fast', 'v1', context.now() - 50), status: 'running', startedAt: context.now() - 40 });
    const { service, resume } = context.open();
    await recover(context, resume);
    expect(await service.result(IP, 'deep')).toMatchObject({ status: 'queued' });
    await flush();
    await flush();
    expect(context.scanner.scans.map((scan) => scan.request.ports.length).sort((a, b) => a - b)).toEqual([32, 65535]);
    for (const scan of context.scanner.scans) scan.complete();
    await flush();
    await flush();
    expect(await service.result(IP, 'deep')).toMatchObject({ status: 'complete' });
    expect(await service.result(IP, 'fast')).toMatchObject({ status: 'complete' });
    expect(await context.store.unfinished()).toEqual([]);
  });
});
