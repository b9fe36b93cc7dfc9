// Scan records in Redis, shared by every node: one key per (scan type, ip),
// expiring with the record (Redis deletes it at expiresAt), and a set of the
// records still queued or running, for recovery after a crash.
import type { Redis } from 'ioredis';

import type { ScanType } from '../api/scan-type.js';
import { isFinal, type ScanRecord } from '../model/scan-record.js';
import type { ResultStore } from '../scan/result-store.js';
import { resultKey, UNFINISHED_KEY } from './redis-keys.js';

export class RedisResultStore implements ResultStore {
  constructor(private readonly redis: Redis) {}

  async get(ip: string, scanType: ScanType, regionsAsked?: string): Promise<ScanRecord | null> {
    const text = await this.redis.get(resultKey(scanType, ip, regionsAsked));
    return text === null ? null : (JSON.parse(text) as ScanRecord);
  }

  /** Durable as far as the Redis primary's persistence settings make it. */
  async put(record: ScanRecord): Promise<void> {
    const key = resultKey(record.scanType, record.ip, record.regionsAsked);
    const text = JSON.stringify(record);
    const write = this.redis.multi();
    if (record.expiresAt === null) write.set(key, text);
    else write.set(key, text, 'PXAT', record.expiresAt);
    if (isFinal(record.status)) write.srem(UNFINISHED_KEY, key);
    else write.sadd(UNFINISHED_KEY, key);
    await write.exec();
  }

  async unfinished(): Promise<ScanRecord[]> {
    const keys = await this.redis.smembers(UNFINISHED_KEY);
    if (keys.length === 0) return [];
    const texts = await this.redis.mget(...keys);
    return texts.flatMap((text) => {
      const record = text === null ? null : (JSON.parse(text) as ScanRecord);
      return record !== null && !isFinal(record.status) ? [record] : [];
    });
  }

  /** Redis deletes each record at its expiresAt itself: nothing is left for a sweep. */
  async deleteExpired(_now: number): Promise<number> {
    return 0;
  }

  /** The connection belongs to whoever opened it. */
  async close(): Promise<void> {}
}
