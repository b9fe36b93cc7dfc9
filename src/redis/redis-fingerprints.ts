// Fingerprints of past scans in Redis, shared by every node: one key per
// (scan type, ip), which Redis deletes when its retention ends.
import type { Redis } from 'ioredis';

import type { ScanType } from '../api/scan-type.js';
import type { Fingerprint } from '../exposure/fingerprint.js';
import type { FingerprintStore } from '../exposure/fingerprint-store.js';
import { fingerprintKey } from './redis-keys.js';

export class RedisFingerprints implements FingerprintStore {
  constructor(private readonly redis: Redis) {}

  async get(ip: string, scanType: ScanType): Promise<Fingerprint | null> {
    const text = await this.redis.get(fingerprintKey(scanType, ip));
    return text === null ? null : (JSON.parse(text) as Fingerprint);
  }

  async put(ip: string, scanType: ScanType, fingerprint: Fingerprint, until: number): Promise<void> {
    await this.redis.set(fingerprintKey(scanType, ip), JSON.stringify(fingerprint), 'PXAT', until);
  }

  /** Redis deletes each fingerprint at its time itself: nothing is left for a sweep. */
  async deleteExpired(_now: number): Promise<number> {
    return 0;
  }
}
