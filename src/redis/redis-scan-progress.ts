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
import type { ScanEnds } from '../scan/scan-finisher.js';
import { chunksKey, EVENTS_CHANNEL, inFlightKey, resultKey, SCAN_STATE_TTL_MS, scanKey, UNFINISHED_KEY } from './redis-keys.js';
import { NOW_MS_LUA } from './redis-time.js';
import type { ChunkFindings } from './scan-event-message.js';

/** KEYS: scan state. ARGV: scan id, channel. A queued scan becomes running; 1 when it did. */
const RUNNING_SCRIPT = `
if redis.call('HGET', KEYS[1], 'status') ~= 'queued' or redis.call('HGET', KEYS[1], 'ended') then return 0 end
${NOW_MS_LUA}
redis.call('HSET', KEYS[1], 'status', 'running', 'startedAt', now)
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[2], '{"scanId":"' .. ARGV[1] .. '","seq":' .. seq .. ',"kind":"running","startedAt":' .. now .. '}')
return 1
`;

/**
 * KEYS: scan state, chunks. ARGV: scan id, channel, chunk index, findings
 * JSON, lifetime ms, 1 when the chunk is complete. Replies the outcome,
 * chunks done and chunks in all.
 */
const RECORD_CHUNK_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'ended') then return { 'ended', 0, 0 } end
local total = tonumber(redis.call('HGET', KEYS[1], 'total'))
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[4]) == 0 then
  return { 'duplicate', tonumber(redis.call('HGET', KEYS[1], 'done')), total }
end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
local done = redis.call('HINCRBY', KEYS[1], 'done', 1)
redis.call('HINCRBY', KEYS[1], 'complete', ARGV[6])
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[2], '{"scanId":"' .. ARGV[1] .. '","seq":' .. seq .. ',"kind":"chunk","index":' .. ARGV[3] .. ',"chunk":' .. ARGV[4] .. '}')
return { 'recorded', done, total }
`;

/**
 * KEYS: scan state, chunks, record, unfinished set, in-flight mark. ARGV:
 * scan id, channel, final record JSON, its expiry (Unix ms), final body
 * JSON, lifetime ms. Ends the scan once: 0 when it had ended already, or
 * is unknown, or a newer scan of its (ip, scan type) holds the record.
 */
const END_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'ended') then return 0 end
local stored = redis.call('GET', KEYS[3])
if stored and cjson.decode(stored).id ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'ended', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
redis.call('SET', KEYS[3], ARGV[3], 'PXAT', ARGV[4])
redis.call('SREM', KEYS[4], KEYS[3])
if redis.call('GET', KEYS[5]) == ARGV[1] then redis.call('DEL', KEYS[5]) end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
redis.call('PUBLISH', ARGV[2], '{"scanId":"' .. ARGV[1] .. '","seq":' .. seq .. ',"kind":"end","body":' .. ARGV[5] .. '}')
return seq
`;

/**
 * KEYS: in-flight mark, record. ARGV: the scan state keys' prefix. Replies
 * the record, and for a scan in flight its id, status, start and chunks
 * complete: what a poll needs, in one round trip.
 */
const CURRENT_SCRIPT = `
local id = redis.call('GET', KEYS[1])
local record = redis.call('GET', KEYS[2])
if not id then return { record } end
local state = redis.call('HMGET', ARGV[1] .. id, 'status', 'startedAt', 'complete', 'ended')
return { record, id, state[1], state[2], state[3], state[4] }
`;

interface ProgressCommands {
  selfscanCurrent(numberOfKeys: number, ...keysAndArgs: string[]): Promise<(string | null)[]>;
  selfscanRunning(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number>;
  selfscanRecordChunk(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<[string, number, number]>;
  selfscanEnd(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number>;
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
    redis.defineCommand('selfscanRunning', { lua: RUNNING_SCRIPT });
    redis.defineCommand('selfscanRecordChunk', { lua: RECORD_CHUNK_SCRIPT });
    redis.defineCommand('selfscanEnd', { lua: END_SCRIPT });
    redis.defineCommand('selfscanCurrent', { lua: CURRENT_SCRIPT });
    this.commands = redis as unknown as ProgressCommands;
  }

  /** A chunk job of the scan began: the scan is running (once). */
  async running(scanId: string): Promise<void> {
    await this.commands.selfscanRunning(1, scanKey(scanId), scanId, EVENTS_CHANNEL);
  }

  /** Stores what chunk `index` found, unless it was stored before or the scan is over. */
  async recordChunk(scanId: string, index: number, findings: ChunkFindings): Promise<ChunkRecorded> {
    const [outcome, done, total] = await this.commands.selfscanRecordChunk(
      2,
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
    const keys = [scanKey(record.id), chunksKey(record.id), resultKey(record.scanType, record.ip), UNFINISHED_KEY, inFlightKey(record.scanType, record.ip)];
    const args = [record.id, EVENTS_CHANNEL, JSON.stringify(record), record.expiresAt!, JSON.stringify(body), SCAN_STATE_TTL_MS];
    return (await this.commands.selfscanEnd(keys.length, ...keys, ...args)) > 0;
  }

  /** The status (`queued`, `running`) of each scan, null for one unknown. */
  async statuses(scanIds: readonly string[]): Promise<(string | null)[]> {
    const pipeline = this.redis.pipeline();
    for (const scanId of scanIds) pipeline.hget(scanKey(scanId), 'status');
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([, status]) => (typeof status === 'string' ? status : null));
  }

  /**
   * The record of (ip, scanType) as a poll shows it, in one round trip: in
   * flight (status and chunks complete, no port lists), final, or null.
   */
  async current(ip: string, scanType: ScanType): Promise<ScanRecord | null> {
    const [recordText, scanId, status, startedAt, complete, ended] = await this.commands.selfscanCurrent(
      2,
      inFlightKey(scanType, ip),
      resultKey(scanType, ip),
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

  /** The id of the scan in flight for (ip, scanType), or null. */
  inFlight(ip: string, scanType: ScanType): Promise<string | null> {
    return this.redis.get(inFlightKey(scanType, ip));
  }

  /** The stored state of scan `scanId` of (ip, scanType); null when it is unknown or its record is another scan's. */
  async snapshot(scanId: string, ip: string, scanType: ScanType): Promise<ScanSnapshot | null> {
    const replies = await this.redis.multi().hgetall(scanKey(scanId)).hgetall(chunksKey(scanId)).get(resultKey(scanType, ip)).exec();
    if (replies === null) return null;
    const [[, state], [, chunkTexts], [, recordText]] = replies as [[null, Record<string, string>], [null, Record<string, string>], [null, string | null]];
    if (recordText === null || state.seq === undefined) return null;
    const record = JSON.parse(recordText) as ScanRecord;
    if (record.id !== scanId) return null;
    const chunks = new Map(Object.entries(chunkTexts).map(([index, text]) => [Number(index), JSON.parse(text) as ChunkFindings]));
    if (state.status === 'running' && record.status === 'queued') {
      record.status = 'running';
      record.startedAt = Number(state.startedAt);
    }
    if (record.status === 'queued' || record.status === 'running') applyChunks(record, chunks.values());
    return { record, seq: Number(state.seq), ended: state.ended !== undefined, chunks };
  }
}

/** Adds chunks' findings to an in-flight record (counts and lists, unsorted). */
export function applyChunks(record: ScanRecord, chunks: Iterable<ChunkFindings>): void {
  for (const chunk of chunks) {
    if (chunk.complete) record.chunksComplete++;
    record.portsOpen.push(...chunk.open);
    record.portsFiltered.push(...chunk.filtered);
  }
}
