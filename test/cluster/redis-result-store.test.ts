// Scan records in a redis-server of the test's own: what one node writes
// another reads. What every ResultStore must do (expiry, the unfinished
// list, exact round trips) is result-store-contract.test.ts's, run against
// this adapter and lmdb's.
import { describe, expect, it } from 'vitest';

import { RedisResultStore } from '../../src/redis/redis-result-store.js';
import { redisPerFile } from '../helpers/redis-per-file.js';
import { queuedRecord } from '../helpers/scan-records.js';

const connect = redisPerFile();
const store = (): RedisResultStore => new RedisResultStore(connect());

describe('RedisResultStore', () => {
  it('gives every node the record another node wrote, by ip and type', async () => {
    const [a, b] = [store(), store()];
    const written = queuedRecord('2001:db8::7', 'deep', {
      status: 'complete',
      portsOpen: [{ port: 22, state: 'open', service: 'ssh', banner: 'SSH-2.0-x' }],
      expiresAt: Date.now() + 60_000,
    });
    await a.put(written);
    expect(await b.get('2001:db8::7', 'deep')).toEqual(written);
    expect(await b.get('2001:db8::7', 'fast')).toBeNull();
  });
});
