// A Redis that fails over, for tests: a primary and a replica on loopback
// TCP ports, and three Sentinels (quorum 2, down-after-milliseconds 2000)
// watching them, all the test's own processes. It resolves only once the
// replica has synced (before its first sync it holds nothing: a failover
// then loses every key) and every Sentinel knows the replica and the other
// two (a failover asked for earlier aborts with
// -failover-abort-no-good-slave), and gives the
// redis+sentinel:// URL that nodes take. Never a system service.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Redis } from 'ioredis';

import { killAndWait } from './child-kill.js';
import { type RedisServer, readyOutput, startRedisServer } from './redis-server.js';

export const MASTER_NAME = 'selfscan';
const HOST = '127.0.0.1';
const DOWN_AFTER_MS = 2000;
/** Longest wait for the Sentinels to learn the replica and each other. */
const DISCOVERY_MS = 20_000;

export interface SentinelRedis {
  /** `redis+sentinel://` naming the three Sentinels and the master. */
  url: string;
  /** The Sentinels' ports. */
  sentinelPorts: number[];
  /** The data nodes by port: the first primary, then the replica. */
  servers: { port: number; server: RedisServer }[];
  /** host:port of the primary the Sentinels name now. */
  primary(): Promise<string>;
  /** Asks the Sentinels for a failover (SENTINEL FAILOVER): the primary is demoted, nothing is killed. */
  failover(): Promise<void>;
  /** kill -9 of the data node at `port` (the primary, to make the Sentinels fail over). */
  kill(port: number): Promise<void>;
  close(): Promise<void>;
}

export interface SentinelRedisOptions {
  /** requirepass (and masterauth) of the data nodes. */
  password?: string;
  /** requirepass of the Sentinels. */
  sentinelPassword?: string;
  /** Fixed ports: the primary on this one, the replica on the next, the Sentinels on the three after (default: free ports). */
  basePort?: number;
  /** Puts something between the replica and the primary (a lagging link): the port the replica replicates from instead. */
  replicaLink?: (primaryPort: number) => Promise<{ port: number; close(): Promise<void> }>;
  /** More lines of each Sentinel's config (a later line wins: `sentinel failover-timeout selfscan 120000`). */
  sentinelLines?: readonly string[];
}

/** A free loopback TCP port (free when asked: the caller binds it right away). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `work` on a connection of its own to the loopback port `port`, then closes it. */
async function once<T>(port: number, password: string | undefined, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({ host: HOST, port, password, lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
  client.on('error', () => {});
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

/** Starts the primary, the replica and three Sentinels; resolves once the Sentinels could fail over. */
export async function startSentinelRedis(options: SentinelRedisOptions = {}): Promise<SentinelRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-sentinel-'));
  const sentinels: ChildProcess[] = [];
  const servers: { port: number; server: RedisServer }[] = [];
  const auth = options.password === undefined ? [] : ['--masterauth', options.password];
  const links: { close(): Promise<void> }[] = [];
  let nextPort = options.basePort;
  const takePort = async (): Promise<number> => (nextPort === undefined ? freePort() : nextPort++);
  const close = async (): Promise<void> => {
    await Promise.all(sentinels.map(killAndWait));
    await Promise.all(servers.map(({ server }) => server.close()));
    await Promise.all(links.map((link) => link.close()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const primaryPort = await takePort();
    // The first full sync starts at once (by default Redis waits 5 s for more replicas, and a failover before it loses everything).
    const primaryArgs = [...auth, '--repl-diskless-sync-delay', '0'];
    servers.push({
      port: primaryPort,
      server: await startRedisServer({ tcp: { host: HOST, port: primaryPort }, requirepass: options.password, args: primaryArgs }),
    });
    const replicaPort = await takePort();
    const link = await options.replicaLink?.(primaryPort);
    if (link !== undefined) links.push(link);
    const replicaOf = ['--replicaof', HOST, String(link?.port ?? primaryPort)];
    servers.push({
      port: replicaPort,
      server: await startRedisServer({ tcp: { host: HOST, port: replicaPort }, requirepass: options.password, args: [...auth, ...replicaOf] }),
    });
    const sentinelPorts: number[] = [];
    for (let i = 0; i < 3; i++) {
      const port = await takePort();
      const conf = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        conf,
        [
          `port ${port}`,
          `bind ${HOST}`,
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} ${HOST} ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} ${DOWN_AFTER_MS}`,
          `sentinel failover-timeout ${MASTER_NAME} 10000`,
          ...(options.password === undefined ? [] : [`sentinel auth-pass ${MASTER_NAME} ${options.password}`]),
          ...(options.sentinelPassword === undefined ? [] : [`requirepass ${options.sentinelPassword}`]),
          ...(options.sentinelLines ?? []),
          '',
        ].join('\n'),
      );
      const child = spawn('redis-server', [conf, '--sentinel'], { stdio: ['ignore', 'pipe', 'ignore'] });
      sentinels.push(child);
      await readyOutput(child, /\+monitor master/, 'redis-sentinel');
      sentinelPorts.push(port);
    }
    const ask = <T>(port: number, ...args: string[]): Promise<T> =>
      once(port, options.sentinelPassword, async (client) => (await client.call('SENTINEL', ...args)) as T);
    const replicaSynced = (): Promise<boolean> =>
      once(replicaPort, options.password, async (client) => /^master_link_status:up/m.test(await client.info('replication')));
    const knowsAll = async (port: number): Promise<boolean> => {
      const replicas = await ask<string[][]>(port, 'replicas', MASTER_NAME);
      const others = await ask<unknown[]>(port, 'sentinels', MASTER_NAME);
      const replicaUp = replicas.some(
        (fields) => fields.includes(String(replicaPort)) && !/s_down|disconnected/.test(fields[fields.indexOf('flags') + 1] ?? ''),
      );
      return replicaUp && others.length === 2;
    };
    const deadline = Date.now() + DISCOVERY_MS;
    while (!((await replicaSynced()) && (await Promise.all(sentinelPorts.map(knowsAll))).every(Boolean))) {
      if (Date.now() > deadline) throw new Error(`the replica did not sync, or the Sentinels did not learn it and each other, within ${DISCOVERY_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const sentinelAuth = options.sentinelPassword === undefined ? '' : `?sentinel_password=${encodeURIComponent(options.sentinelPassword)}`;
    const dataAuth = options.password === undefined ? '' : `:${encodeURIComponent(options.password)}@`;
    return {
      url: `redis+sentinel://${dataAuth}${sentinelPorts.map((port) => `${HOST}:${port}`).join(',')}/${MASTER_NAME}${sentinelAuth}`,
      sentinelPorts,
      servers,
      primary: async () => (await ask<string[]>(sentinelPorts[0]!, 'get-master-addr-by-name', MASTER_NAME)).join(':'),
      failover: async () => {
        await ask(sentinelPorts[0]!, 'failover', MASTER_NAME);
      },
      kill: async (port) => servers.find((entry) => entry.port === port)!.server.close(),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
