// Scan records in a redis-server of the test's own: what one node writes
// another reads, records expire at expiresAt, and what a crash left
// unfinished can be found.
import { describe, expect, it } from 'vitest';

import { RedisResultStore } from '../../src/cluster/redis-result-store.js';
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

  it('lets a record expire at its expiresAt', async () => {
    const s = store();
    await s.put(queuedRecord('203.0.113.1', 'fast', { status: 'complete', expiresAt: Date.now() + 200 }));
    expect(await s.get('203.0.113.1', 'fast')).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await s.get('203.0.113.1', 'fast')).toBeNull();
  });

  it('lists what is still queued or running, and no longer once it is final', async () => {
    const s = store();
    await s.put(queuedRecord('203.0.113.2'));
    await s.put(queuedRecord('203.0.113.3', 'fast', { status: 'running', startedAt: Date.now() }));
    await s.put(queuedRecord('203.0.113.4', 'fast', { status: 'failed', failReason: 'interrupted', expiresAt: Date.now() + 60_000 }));
    expect((await store().unfinished()).map((r) => r.ip).sort()).toEqual(['203.0.113.2', '203.0.113.3']);
    await s.put(queuedRecord('203.0.113.2', 'fast', { status: 'complete', expiresAt: Date.now() + 60_000 }));
    expect((await s.unfinished()).map((r) => r.ip)).toEqual(['203.0.113.3']);
  });
});
