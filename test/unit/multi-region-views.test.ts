// The pure logic of multi-region scans: the `regions` a request asks for,
// each region's view as chunks come in, the union the top-level lists show,
// each region's end, the ports seen differently, and the scan limits a scan
// from several regions is charged (the real in-memory GCRA store).
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

import { ApiError } from '../../src/api/api-error.js';
import type { Port } from '../../src/api/port.js';
import { refuseRegions, regionsKey, regionsNamed } from '../../src/api/regions-asked.js';
import { SCAN_PROFILES } from '../../src/api/scan-type.js';
import { Admission } from '../../src/limits/admission.js';
import { MemoryRateLimitStore } from '../../src/limits/rate/rate-limit-store.js';
import { Refusal } from '../../src/limits/refusal.js';
import { placeRecord, queuedRecord } from '../../src/model/scan-record.js';
import { applyVantageChunk, portDifferences, regionChunk, settleVantages, unionPorts } from '../../src/model/vantage-views.js';
import { finalBody, progressBody } from '../../src/scan/result-view.js';
import { NO_LIMITS } from '../../support/no-limits.js';

const open = (port: number): Port => ({ port, state: 'open', service: null, banner: null });
const filtered = (port: number): Port => ({ port, state: 'filtered', service: null, banner: null });
/** Deep chunk i holds ports i·1024+1 onwards. */
const DEEP = SCAN_PROFILES.deep.totalChunks;

describe('regions asked', () => {
  it('takes all, or names sorted without repeats, as one key', () => {
    expect(regionsKey('all')).toBe('all');
    expect(regionsKey('NL,FR,NL')).toBe('FR,NL');
    expect(regionsNamed('FR,NL')).toEqual(['FR', 'NL']);
    expect(regionsNamed('all')).toBeNull();
  });

  it('refuses what is no list of region names', () => {
    for (const bad of ['', ',', 'NL,', 'NL FR', 'N/L', 'x'.repeat(33), Array.from({ length: 33 }, (_, i) => `r${i}`).join(',')]) {
      expect(refuseRegions(bad), bad).not.toBeNull();
    }
    for (const good of ['all', 'NL', 'NL,FR', 'eu-west_1']) expect(refuseRegions(good), good).toBeNull();
  });
});

describe('a multi-region record', () => {
  const record = () => placeRecord(queuedRecord('s1', '198.18.0.2', 'deep', 'v1', 1000), { regions: ['FR', 'NL', 'UK'], regionsAsked: 'all' });

  it('has every region scan the whole range, region k owning chunks k·n onwards', () => {
    const scan = record();
    expect(scan.totalChunks).toBe(3 * DEEP);
    expect(scan.vantages!.map((v) => [v.region, v.totalChunks])).toEqual([
      ['FR', DEEP],
      ['NL', DEEP],
      ['UK', DEEP],
    ]);
    expect(regionChunk('deep', 0)).toEqual({ region: 0, local: 0 });
    expect(regionChunk('deep', DEEP + 5)).toEqual({ region: 1, local: 5 });
    expect(regionChunk('fast', 9)).toEqual({ region: 2, local: 1 });
  });

  it('keeps each region its own view, shows the union, and lists the ports seen differently', () => {
    const scan = { ...record(), status: 'running' as const, startedAt: 2000 };
    const vantages = scan.vantages!;
    // Chunk 0 (ports 1-1024) from each region: 22 open everywhere; 80 open from FR and NL, filtered from UK.
    applyVantageChunk(vantages, 'deep', 0, { open: [open(22), open(80)], filtered: [], complete: true, at: 2500 });
    applyVantageChunk(vantages, 'deep', DEEP, { open: [open(22), open(80)], filtered: [], complete: true, at: 2600 });
    applyVantageChunk(vantages, 'deep', 2 * DEEP, { open: [open(22)], filtered: [filtered(80)], complete: true, at: 2700 });
    // Chunk 7 (ports 7169-8192): 8080 open from NL only; closed from FR; UK never verified it.
    applyVantageChunk(vantages, 'deep', 7, { open: [], filtered: [], complete: true, at: 2800 });
    applyVantageChunk(vantages, 'deep', DEEP + 7, { open: [open(8080)], filtered: [], complete: true, at: 2900 });

    const progress = progressBody(scan, DEEP + 7);
    expect(progress.region).toBe('NL');
    expect(progress.chunk_index).toBe(7);
    expect(progress.ports_open.map((p) => p.port)).toEqual([22, 80, 8080]);
    expect(progress.vantages!.map((v) => [v.region, v.chunks_complete, v.ports_open.length, v.filtered_count])).toEqual([
      ['FR', 2, 2, 0],
      ['NL', 2, 3, 0],
      ['UK', 1, 1, 1],
    ]);

    expect(unionPorts(vantages).filtered).toEqual([]); // 80 is open from somewhere: not filtered in the union
    expect(portDifferences(vantages, 'deep')).toEqual([
      { port: 80, open: ['FR', 'NL'], filtered: ['UK'], closed: [], unknown: [] },
      { port: 8080, open: ['NL'], filtered: [], closed: ['FR'], unknown: ['UK'] },
    ]);
  });

  it('ends each region by what it verified, and the body carries every view', () => {
    const scan = { ...record(), status: 'incomplete' as const, startedAt: 2000, completedAt: 9000, expiresAt: 99_000, durationMs: 7000 };
    const vantages = scan.vantages!;
    for (let i = 0; i < DEEP; i++) applyVantageChunk(vantages, 'deep', i, { open: i === 0 ? [open(22)] : [], filtered: [], complete: true, at: 5000 });
    applyVantageChunk(vantages, 'deep', DEEP, { open: [open(22)], filtered: [], complete: false, at: 4000 });
    settleVantages(vantages);
    const union = unionPorts(vantages);
    const body = finalBody({ ...scan, portsOpen: union.open, portsFiltered: union.filtered });
    expect(body.status).toBe('incomplete');
    expect(body.regions).toEqual(['FR', 'NL', 'UK']);
    expect(body.vantages!.map((v) => [v.region, v.status, v.fail_reason, v.duration_ms, v.chunks_complete])).toEqual([
      ['FR', 'complete', undefined, 3000, DEEP],
      ['NL', 'incomplete', undefined, 2000, 0],
      ['UK', 'failed', 'interrupted', 0, 0],
    ]);
    expect(body.differences).toEqual([]); // 22 is open from both regions that verified anything of it
  });
});

describe('the scan limits of a scan from several regions', () => {
  const limits = { ...NO_LIMITS, deepPerIp: { max: 3, windowSeconds: 600 } };
  const admission = (now: { t: number }) =>
    new Admission({
      limits,
      store: new MemoryRateLimitStore(),
      optOut: { has: () => false },
      asn: { asnOf: () => null } as never,
      allowPrivateTargets: true,
      clock: { now: () => now.t },
      logger: pino({ level: 'silent' }),
    });

  it('charges each region as one scan, all or none, and says when all fit', async () => {
    const now = { t: 1_000_000 };
    const gate = admission(now);
    await gate.admitScan('203.0.113.9', 'deep', 'v1', 3).charge(); // three of three
    const refused = await gate
      .admitScan('203.0.113.9', 'deep', 'v1', 1)
      .charge()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Refusal);
    expect((refused as Refusal).retryAfter).toBe(200); // one scan's share of 600 s
    now.t += 200_000;
    await gate.admitScan('203.0.113.9', 'deep', 'v1', 1).charge();
  });

  it('refuses a scan from more regions than the limit allows, charging nothing', async () => {
    const now = { t: 1_000_000 };
    const gate = admission(now);
    await gate.admitScan('203.0.113.9', 'deep', 'v1', 2).charge();
    const refused = (await gate
      .admitScan('203.0.113.9', 'deep', 'v1', 2)
      .charge()
      .catch((error: unknown) => error)) as Refusal;
    expect(refused.reason).toMatch(/limited to 3 per 600 s .*a scan from 2 regions counts as 2.*retry in 200 s/);
    await gate.admitScan('203.0.113.9', 'deep', 'v1', 1).charge(); // the refusal charged nothing: one still fits
  });

  it('answers a scan from more regions than the limit ever allows with invalid_regions, no Retry-After', () => {
    const refused = (() => {
      try {
        admission({ t: 1_000_000 }).admitScan('203.0.113.9', 'deep', 'v1', 4);
      } catch (error) {
        return error as ApiError;
      }
    })();
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused!.code).toBe('invalid_regions');
    expect(refused!.retryAfter).toBeUndefined();
    expect(refused!.reason).toBe('a deep scan from 4 regions counts as 4 scans, more than the 3 per 600 s this server allows; ask for at most 3 regions');
  });
});
