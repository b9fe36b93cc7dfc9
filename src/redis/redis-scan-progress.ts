// A scan's state while it runs, stored in Redis and published in the same
// atomic step (state first, so a reader of the state never misses what a
// subscriber was told): it starts running, chunks are recorded (each once,
// however often a chunk job is delivered), it ends (the final record is
// stored with its 24 h expiry and the in-flight mark cleared). Each change
// takes the next number of the scan's sequence.
import type { Redis } from 'ioredis';

import type { ScanResultFinal } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanRecord } from '../model/scan-record.js';
import { applyVantageChunk } from '../model/vantage-views.js';
import type { ScanEnds } from '../scan/scan-finisher.js';
import { defineLua } from './lua-scripts.js';
import { chunksKey, EVENTS_CHANNEL, inFlightKey, resultKey, SCAN_STATE_TTL_MS, type ScanState, scanKey, UNFINISHED_KEY } from './redis-keys.js';
import type { ChunkFindings } from './scan-event-message.js';

/** The scripts of lua/scan-*.lua, each with its keys declared in its name. */
interface ProgressCommands {
  selfscanCurrent(...keysAndArgs: string[]): Promise<(string | null)[]>;
  selfscanRunning(...keysAndArgs: (string | number)[]): Promise<number>;
  selfscanRecordChunk(...keysAndArgs: (string | number)[]): Promise<[string, number, number]>;
  selfscanEnd(...keysAndArgs: (string | number)[]): Promise<number>;
}

export interface ChunkRecorded {
  /** `duplicate`: recorded before (a redelivered job); `ended`: the scan is over, nothing recorded. */
  outcome: 'recorded' | 'duplicate' | 'ended';
  done: number;
  total: number;
}

/** A scan in flight as stored: its record (as queued), progress and sequence. */
export interface ScanSnapshot {
  record: ScanRecord;
  /** The number of the last event published. */
  seq: number;
  ended: boolean;
  chunks: Map<number, ChunkFindings>;
}

export class RedisScanProgress implements ScanEnds {
  private readonly commands: ProgressCommands;

  constructor(private readonly redis: Redis) {
    defineLua(redis, 'selfscanRunning', 'scan-running-1.lua');
    defineLua(redis, 'selfscanRecordChunk', 'scan-record-chunk-2.lua');
    defineLua(redis, 'selfscanEnd', 'scan-end-5.lua');
    defineLua(redis, 'selfscanCurrent', 'scan-current-2.lua');
    this.commands = redis as unknown as ProgressCommands;
  }

  /** A chunk job of the scan began: the scan is running (once). */
  async running(scanId: string): Promise<void> {
    await this.commands.selfscanRunning(scanKey(scanId), scanId, EVENTS_CHANNEL);
  }

  /** Stores what chunk `index` found, unless it was stored before or the scan is over. */
  async recordChunk(scanId: string, index: number, findings: ChunkFindings): Promise<ChunkRecorded> {
    const [outcome, done, total] = await this.commands.selfscanRecordChunk(
      scanKey(scanId),
      chunksKey(scanId),
      scanId,
      EVENTS_CHANNEL,
      index,
      JSON.stringify(findings),
      SCAN_STATE_TTL_MS,
      findings.complete ? 1 : 0,
    );
    return { outcome: outcome as ChunkRecorded['outcome'], done, total };
  }

  /** Ends the scan with `record` (final, with expiresAt); false when it had ended already. */
  async end(record: ScanRecord, body: ScanResultFinal): Promise<boolean> {
    const { scanType, ip, regionsAsked } = record;
    const keys = [scanKey(record.id), chunksKey(record.id), resultKey(scanType, ip, regionsAsked), UNFINISHED_KEY, inFlightKey(scanType, ip, regionsAsked)];
    const args = [record.id, EVENTS_CHANNEL, JSON.stringify(record), record.expiresAt!, JSON.stringify(body), SCAN_STATE_TTL_MS];
    return (await this.commands.selfscanEnd(...keys, ...args)) > 0;
  }

  /** The status (`queued`, `running`) of each scan, null for one unknown. */
  async statuses(scanIds: readonly string[]): Promise<(string | null)[]> {
    const pipeline = this.redis.pipeline();
    const field: keyof ScanState = 'status';
    for (const scanId of scanIds) pipeline.hget(scanKey(scanId), field);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([, status]) => (typeof status === 'string' ? status : null));
  }

  /**
   * The record of (ip, scanType[, regions asked]) as a poll shows it, in
   * one round trip: in flight (status and chunks complete, no port lists;
   * a multi-region scan's regions need its chunks: snapshot), final, or null.
   */
  async current(ip: string, scanType: ScanType, regionsAsked?: string): Promise<ScanRecord | null> {
    const [recordText, scanId, status, startedAt, complete, ended] = await this.commands.selfscanCurrent(
      inFlightKey(scanType, ip, regionsAsked),
      resultKey(scanType, ip, regionsAsked),
      scanKey(''),
    );
    const record = recordText === null || recordText === undefined ? null : (JSON.parse(recordText) as ScanRecord);
    if (record === null || scanId === undefined || record.id !== scanId || ended) return record;
    if (status === 'running') {
      record.status = 'running';
      record.startedAt = Number(startedAt);
    }
    record.chunksComplete = Number(complete ?? 0);
    return record;
  }

  /** The id of the scan in flight for (ip, scanType[, regions asked]), or null. */
  inFlight(ip: string, scanType: ScanType, regionsAsked?: string): Promise<string | null> {
    return this.redis.get(inFlightKey(scanType, ip, regionsAsked));
  }

  /** The stored state of scan `scanId` of (ip, scanType[, regions asked]); null when it is unknown or its record is another scan's. */
  async snapshot(scanId: string, ip: string, scanType: ScanType, regionsAsked?: string): Promise<ScanSnapshot | null> {
    const replies = await this.redis
      .multi()
      .hgetall(scanKey(scanId))
      .hgetall(chunksKey(scanId))
      .get(resultKey(scanType, ip, regionsAsked))
      .exec();
    if (replies === null) return null;
    const [[, state], [, chunkTexts], [, recordText]] = replies as [[null, ScanState], [null, Record<string, string>], [null, string | null]];
    if (recordText === null || state.seq === undefined) return null;
    const record = JSON.parse(recordText) as ScanRecord;
    if (record.id !== scanId) return null;
    const chunks = new Map(Object.entries(chunkTexts).map(([index, text]) => [Number(index), JSON.parse(text) as ChunkFindings]));
    if (state.status === 'running' && record.status === 'queued') {
      record.status = 'running';
      record.startedAt = Number(state.startedAt);
    }
    if (record.status === 'queued' || record.status === 'running') applyChunks(record, chunks);
    return { record, seq: Number(state.seq), ended: state.ended !== undefined, chunks };
  }
}

/**
 * Adds chunks' findings, by chunk index, to an in-flight record (counts and
 * lists, unsorted); a multi-region scan's go to their regions' views, whose
 * union the record shows when it ends.
 */
export function applyChunks(record: ScanRecord, chunks: Iterable<[number, ChunkFindings]>): void {
  for (const [index, chunk] of chunks) {
    if (chunk.complete) record.chunksComplete++;
    if (record.vantages !== undefined) applyVantageChunk(record.vantages, record.scanType, index, chunk);
    else {
      record.portsOpen.push(...chunk.open);
      record.portsFiltered.push(...chunk.filtered);
    }
  }
}
