// Data stores recognised by a harmless read and rated by whether they answer
// without credentials: a real redis-server with and without a password, a
// MongoDB-shaped responder with authorization on and off, a real memcached
// and a Memcached-shaped responder for SASL. The responders record what
// they were sent: reads only.
import { execFileSync } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { gatherFacts } from '../../src/exposure/gather-facts.js';
import { type MemcachedServer, startMemcachedServer } from '../../support/memcached-server.js';
import { type MongodbResponder, RESPONDER_VERSION, startMongodbResponder } from '../../support/mongodb-responder.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { listenRaw, type RawListener } from '../helpers/raw-listener.js';

const IP = '127.26.3.1';

const open = (port: number, banner: string | null): Port => ({ port, state: 'open', service: null, banner });

async function factsOf(port: number, banner: string | null): Promise<Port> {
  const found = open(port, banner);
  await gatherFacts(IP, [found], { ptr: null, trustRoots: [] });
  return found;
}

const redisVersion = /v=(\S+)/.exec(execFileSync('redis-server', ['--version'], { encoding: 'utf8' }))![1];
const memcachedVersion = /memcached (\S+)/.exec(execFileSync('memcached', ['-V'], { encoding: 'utf8' }))![1];

describe('Redis (a real redis-server)', () => {
  let open: RedisServer;
  let guarded: RedisServer;

  beforeAll(async () => {
    [open, guarded] = await Promise.all([
      startRedisServer({ tcp: { host: IP, port: 6379 } }),
      startRedisServer({ tcp: { host: IP, port: 7380 }, requirepass: 'correct horse' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([open.close(), guarded.close()]);
  });

  it('without a password: PING answers PONG, high, with the version INFO gave', async () => {
    const port = await factsOf(6379, null);
    expect(port.facts?.access).toEqual({ service: 'redis', auth_required: false, version: redisVersion, evidence: 'PING answered PONG' });
    expect(port.facts?.tls).toBeUndefined();
    expect(port.risk?.severity).toBe('high');
  });

  it('with a password, found by the banner on another port: NOAUTH, medium', async () => {
    const port = await factsOf(7380, '-NOAUTH Authentication required.');
    expect(port.facts?.access).toEqual({
      service: 'redis',
      auth_required: true,
      version: null,
      evidence: 'PING answered -NOAUTH Authentication required.',
    });
    expect(port.risk?.severity).toBe('medium');
  });
});

describe('MongoDB (an OP_MSG responder)', () => {
  let open: MongodbResponder;
  let guarded: MongodbResponder;

  beforeAll(async () => {
    [open, guarded] = await Promise.all([startMongodbResponder(IP, 27017, false), startMongodbResponder(IP, 27018, true)]);
  });

  afterAll(async () => {
    await Promise.all([open.close(), guarded.close()]);
  });

  it('listing databases without credentials is high, with the version buildInfo gave', async () => {
    const port = await factsOf(27017, null);
    expect(port.facts?.access).toEqual({
      service: 'mongodb',
      auth_required: false,
      version: RESPONDER_VERSION,
      evidence: 'listDatabases answered 3 database name(s)',
    });
    expect(port.risk?.severity).toBe('high');
    expect(open.commands).toEqual(['hello', 'listDatabases', 'buildInfo']);
  });

  it('refused as Unauthorized is medium', async () => {
    const port = await factsOf(27018, null);
    expect(port.facts?.access).toEqual({
      service: 'mongodb',
      auth_required: true,
      version: RESPONDER_VERSION,
      evidence: 'listDatabases refused: Unauthorized',
    });
    expect(port.risk?.severity).toBe('medium');
    expect(guarded.commands).toEqual(['hello', 'listDatabases', 'buildInfo']);
  });
});

describe('Memcached (a real memcached, and a responder for SASL)', () => {
  let plain: MemcachedServer;
  let sasl: RawListener;

  beforeAll(async () => {
    plain = await startMemcachedServer(IP, 11211);
    sasl = await listenRaw(IP, 11300, (socket) => socket.on('data', () => socket.write('ERROR\r\n')));
  });

  afterAll(async () => {
    await Promise.all([plain.close(), sasl.close()]);
  });

  it('answering version is high, with the version', async () => {
    const port = await factsOf(11211, 'ERROR\nERROR');
    expect(port.facts?.access).toEqual({ service: 'memcached', auth_required: false, version: memcachedVersion, evidence: 'version answered VERSION' });
    expect(port.risk?.severity).toBe('high');
  });

  it('one for SASL only answers errors: medium', async () => {
    const port = await factsOf(11300, 'ERROR\nERROR');
    expect(port.facts?.access).toMatchObject({ service: 'memcached', auth_required: true, version: null });
    expect(port.risk?.severity).toBe('medium');
  });
});
