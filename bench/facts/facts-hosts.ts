// The hosts the facts benchmark scans, on loopback addresses of its own:
// a fast-scan host with six open ports (TLS, HTTP, SSH, Redis, two silent)
// and a deep-scan host with 200 (TLS, HTTP, SSH banners and silent ones,
// fifty of each). Every listener is a real server.
import { createServer as createHttpServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { startRedisServer } from '../../support/redis-server.js';
import { createTestPki } from '../../support/test-pki.js';

export const FAST_HOST = '127.26.50.1';
export const DEEP_HOST = '127.26.51.1';

/** The fast host's ports, by what listens. */
export const FAST_PORTS = { tls: 443, http: 80, ssh: 22, redis: 6379, silent: [3306, 5432] } as const;

/** The deep host's first port; its 200 listeners take the ports from here up. */
const DEEP_FIRST_PORT = 30_000;
const DEEP_EACH = 50;

const SSH_BANNER = 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3';
const PAGE = '<!doctype html><html><head><title>Facts benchmark</title></head><body>ok</body></html>';

export interface BenchHosts {
  /** The deep host's open ports. */
  deepPorts: number[];
  close(): Promise<void>;
}

function listen(server: Server | ReturnType<typeof createTlsServer>, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
}

/** Starts both hosts' listeners. */
export async function startBenchHosts(): Promise<BenchHosts> {
  const pki = createTestPki();
  const { cert, key } = pki.issue({ cn: 'bench.test', sans: ['bench.test'] });
  const closers: (() => unknown)[] = [() => pki.close()];
  const servers: (Server | ReturnType<typeof createTlsServer>)[] = [];
  const sockets = new Set<Socket>();
  const page = (server: Server | ReturnType<typeof createTlsServer>) => {
    servers.push(server);
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    return server;
  };
  const httpServer = () => page(createHttpServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE)));
  const tlsServer = () => page(createTlsServer({ cert, key }, (socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n')));
  try {
    await listen(tlsServer(), FAST_HOST, FAST_PORTS.tls);
    await listen(httpServer(), FAST_HOST, FAST_PORTS.http);
    const banners: Listeners[] = [await listenOn(FAST_HOST, [FAST_PORTS.ssh], SSH_BANNER), await listenOn(FAST_HOST, [...FAST_PORTS.silent])];
    const redis = await startRedisServer({ tcp: { host: FAST_HOST, port: FAST_PORTS.redis } });
    closers.push(() => redis.close());
    const deepPorts = Array.from({ length: 4 * DEEP_EACH }, (_, i) => DEEP_FIRST_PORT + i);
    for (const port of deepPorts.slice(0, DEEP_EACH)) await listen(tlsServer(), DEEP_HOST, port);
    for (const port of deepPorts.slice(DEEP_EACH, 2 * DEEP_EACH)) await listen(httpServer(), DEEP_HOST, port);
    banners.push(await listenOn(DEEP_HOST, deepPorts.slice(2 * DEEP_EACH, 3 * DEEP_EACH), SSH_BANNER));
    banners.push(await listenOn(DEEP_HOST, deepPorts.slice(3 * DEEP_EACH)));
    closers.push(...banners.map((listeners) => () => listeners.close()));
    closers.push(() => closeServers(servers, sockets));
    return { deepPorts, close: () => closeAll(closers) };
  } catch (error) {
    closers.push(() => closeServers(servers, sockets));
    await closeAll(closers);
    throw error;
  }
}

/** Closes `servers`, first cutting every connection still open (a probe's or a scan's), which close() would wait for. */
function closeServers(servers: readonly (Server | ReturnType<typeof createTlsServer>)[], sockets: Set<Socket>): Promise<unknown> {
  for (const socket of sockets) socket.destroy();
  return Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
}

async function closeAll(closers: readonly (() => unknown)[]): Promise<void> {
  for (const close of [...closers].reverse()) await close();
}
