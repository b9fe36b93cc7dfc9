// Hostile and broken servers against the facts probes: a port that never
// speaks, a TLS handshake that never ends, a 10 MB title, binary garbage, a
// slowloris trickle. Each is cut by the reply wait, the byte cap or the
// stage cap: gatherFacts returns in time, and what it keeps is small and
// printable.
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { gatherFacts } from '../../src/exposure/gather-facts.js';
import { MAX_READ_BYTES, REPLY_FLOOR_MS } from '../../src/exposure/probe-connection.js';
import { createTestPki } from '../../support/test-pki.js';
import { listenRaw, type RawListener } from '../helpers/raw-listener.js';

const IP = '127.26.4.1';
const listeners: RawListener[] = [];
const timers = new Set<NodeJS.Timeout>();
let slowTls: TlsServer;

/** Writes `next()` every `ms` until the socket closes. */
function trickle(socket: Socket, ms: number, next: () => string | Buffer): void {
  const timer = setInterval(() => {
    if (socket.destroyed) {
      clearInterval(timer);
      timers.delete(timer);
    } else socket.write(next());
  }, ms);
  timers.add(timer);
}

const open = (port: number, banner: string | null): Port => ({ port, state: 'open', service: null, banner });

async function timed(ports: Port[], capMs?: number): Promise<number> {
  const started = performance.now();
  await gatherFacts(IP, ports, { ptr: 'hostile.test', trustRoots: [], ...(capMs === undefined ? {} : { capMs }) });
  return performance.now() - started;
}

/** The port's result is small and every text in it printable. */
function expectSmallAndPrintable(port: Port): void {
  const text = JSON.stringify(port);
  expect(text.length).toBeLessThan(4096);
  expect(text).toMatch(/^[ -~]*$/);
}

const TEN_MB = 10 * 1024 * 1024;

beforeAll(async () => {
  const add = async (port: number, onSocket: (socket: Socket) => void) => listeners.push(await listenRaw(IP, port, onSocket));
  await add(7001, () => {}); // accepts, never speaks
  // A TLS record header (handshake, 16 KiB) after the ClientHello, then a byte every 50 ms.
  await add(7443, (socket) =>
    socket.once('data', () => {
      socket.write(Buffer.from([0x16, 0x03, 0x03, 0x40, 0x00]));
      trickle(socket, 50, () => Buffer.from([0x02]));
    }),
  );
  // An answer with a 10 KB Server header and a 10 MB title.
  await add(8080, (socket) =>
    socket.once('data', () => {
      socket.write(`HTTP/1.1 200 OK\r\nServer: ${'S'.repeat(10_000)}\r\nContent-Length: ${TEN_MB + 15}\r\n\r\n<title>`);
      socket.end(`${'\x01\u00e9A'.repeat(TEN_MB / 4)}${'A'.repeat(TEN_MB - (TEN_MB / 4) * 3)}</title>`);
    }),
  );
  // A title that starts only after the first 64 KiB.
  await add(8081, (socket) =>
    socket.once('data', () => socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${MAX_READ_BYTES + 30}\r\n\r\n${' '.repeat(MAX_READ_BYTES)}<title>late</title>`)),
  );
  // Binary garbage at once and on every request, on ports every access probe runs on.
  for (const port of [6379, 11211, 27017, 9200]) {
    await add(port, (socket) => {
      socket.write(randomBytes(2048));
      socket.on('data', () => socket.write(randomBytes(70_000)));
    });
  }
  // Slowloris: a status line, then a byte every 50 ms forever.
  await add(8008, (socket) =>
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\nServer: slow\r\nX-Slow: ');
      trickle(socket, 50, () => 'z');
    }),
  );
  // A real TLS handshake, then no answer to the request.
  const pki = createTestPki();
  const issued = pki.issue({ cn: 'hostile.test', selfSigned: true });
  pki.close();
  slowTls = createTlsServer({ cert: issued.cert, key: issued.key }, (socket) => {
    socket.on('error', () => {});
    socket.resume(); // reads (and ignores) the request, so it sees the probe hang up
  });
  slowTls.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => slowTls.listen(8443, IP, resolve));
});

afterAll(async () => {
  for (const timer of timers) clearInterval(timer);
  await Promise.all(listeners.map((listener) => listener.close()));
  await new Promise((resolve) => slowTls.close(resolve));
});

describe('each hostile server alone', () => {
  it('a port that accepts and never speaks: no facts, one reply wait', async () => {
    const port = open(7001, null);
    const ms = await timed([port]);
    expect(port.facts).toBeUndefined();
    expect(port.risk?.severity).toBe('info');
    expect(ms).toBeGreaterThanOrEqual(REPLY_FLOOR_MS - 5);
    expect(ms).toBeLessThan(800);
  });

  it('an endless TLS handshake: cut by the reply wait, no facts', async () => {
    const port = open(7443, null);
    const ms = await timed([port]);
    expect(port.facts).toBeUndefined();
    expect(ms).toBeLessThan(800);
  });

  it('a 10 MB title and a 10 KB header: cut to 200 printable characters, the read to 64 KiB', async () => {
    const port = open(8080, 'HTTP/1.1 200 OK');
    const ms = await timed([port]);
    expect(port.facts?.http?.status).toBe(200);
    expect(port.facts?.http?.server).toBe('S'.repeat(200));
    expect(port.facts?.http?.title).toBe('..A'.repeat(67).slice(0, 200));
    expectSmallAndPrintable(port);
    expect(ms).toBeLessThan(800);
  });

  it('reads no more than 64 KiB of a connection: a title after them is not seen', async () => {
    const port = open(8081, 'HTTP/1.1 200 OK');
    await timed([port]);
    expect(port.facts?.http).toMatchObject({ status: 200, title: null });
  });

  it('binary garbage on the Redis, Memcached, MongoDB and Elasticsearch ports: no facts, no crash', async () => {
    const ports = [6379, 11211, 27017, 9200].map((number) => open(number, '..A....k.'));
    const ms = await timed(ports);
    for (const port of ports) {
      expect(port.facts).toBeUndefined();
      expect(port.risk?.severity).toBe('info');
    }
    expect(ms).toBeLessThan(800);
  });

  it('a slowloris trickle: cut by the reply wait, the status kept', async () => {
    const port = open(8008, 'HTTP/1.1 200 OK');
    const ms = await timed([port]);
    expect(port.facts?.http).toMatchObject({ status: 200, server: 'slow', title: null });
    expectSmallAndPrintable(port);
    expect(ms).toBeLessThan(800);
  });
});

describe('the stage cap', () => {
  it('keeps what was learned when it cuts a probe: the certificate of a server that never answers the request', async () => {
    const port = open(8443, null);
    const ms = await timed([port], 120);
    expect(port.facts?.tls).toMatchObject({ self_signed: true, subject_cn: 'hostile.test' });
    expect(port.facts?.http).toBeUndefined();
    expect(port.risk?.severity).toBe('low');
    expect(ms).toBeLessThan(120 + 60);
  });

  it('ends a call at the cap however many ports are left', async () => {
    const ports = Array.from({ length: 100 }, () => open(7001, null));
    const ms = await timed(ports, 250);
    expect(ms).toBeLessThan(250 + 60);
    for (const port of ports) expect(port.risk?.severity).toBe('info');
  });

  it('bounds all the hostile servers at once', async () => {
    const ports = [open(7001, null), open(7443, null), open(8080, 'HTTP/1.1 200 OK'), open(8008, 'HTTP/1.1 200 OK'), open(8443, null)];
    ports.push(...[6379, 11211, 27017, 9200].map((number) => open(number, null)));
    const ms = await timed(ports);
    expect(ms).toBeLessThan(1500);
    for (const port of ports) expectSmallAndPrintable(port);
  });
});
