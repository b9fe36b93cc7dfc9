// gatherFacts as a whole: a handful of ports costs about one reply wait, a
// deep scan's 200 open ports never more than 32 connections at once and
// well under the stage cap, and nothing it meets makes it reject.
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

import { afterAll, beforeAll, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { FACTS_CAP_MS, gatherFacts, MAX_PROBE_CONNECTIONS } from '../../src/exposure/gather-facts.js';
import { REPLY_FLOOR_MS } from '../../src/exposure/probe-connection.js';
import { startMongodbResponder } from '../../support/mongodb-responder.js';
import { listenRaw, type RawListener } from '../helpers/raw-listener.js';

const IP = '127.26.5.1';
const MANY_FROM = 20_000;
const MANY = 200;

const listeners: RawListener[] = [];
let openNow = 0;
let mostAtOnce = 0;

const PAGE = '<html><head><title>Many</title></head></html>';

/** Counts connections across all listeners; `http`: answers each request with a small page. */
function onSocket(http: boolean): (socket: Socket) => void {
  return (socket) => {
    openNow++;
    mostAtOnce = Math.max(mostAtOnce, openNow);
    let counted = true;
    const gone = () => {
      if (counted) openNow--;
      counted = false;
    };
    socket.once('end', gone);
    socket.once('close', gone);
    if (http) socket.once('data', () => socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${PAGE.length}\r\n\r\n${PAGE}`));
    else socket.resume();
  };
}

const open = (port: number, banner: string | null): Port => ({ port, state: 'open', service: null, banner });

let closeMongo: () => Promise<void>;

beforeAll(async () => {
  for (let i = 0; i < MANY; i++) listeners.push(await listenRaw(IP, MANY_FROM + i, onSocket(i % 2 === 0)));
  listeners.push(await listenRaw(IP, 80, onSocket(true)));
  closeMongo = (await startMongodbResponder(IP, 27017, false)).close;
});

afterAll(async () => {
  await Promise.all(listeners.map((listener) => listener.close()));
  await closeMongo();
});

it('6 ports, 2 of them silent: about one reply wait', async () => {
  const ports = [
    open(80, 'HTTP/1.1 200 OK'),
    open(MANY_FROM, 'HTTP/1.1 200 OK'),
    open(MANY_FROM + 1, null),
    open(MANY_FROM + 3, null),
    open(27017, null),
    open(22, 'SSH-2.0-OpenSSH_9.2p1'),
  ];
  const started = performance.now();
  await gatherFacts(IP, ports, { ptr: null, trustRoots: [] });
  const ms = performance.now() - started;
  console.log(`6 ports, 2 silent: ${ms.toFixed(0)} ms`);
  expect(ports.map((port) => Object.keys(port.facts ?? {}).join('+'))).toEqual(['http', 'http', '', '', 'access', 'ssh']);
  expect(ms).toBeGreaterThanOrEqual(REPLY_FLOOR_MS - 5);
  expect(ms).toBeLessThan(2 * REPLY_FLOOR_MS + 200);
});

it(`${MANY} open ports, half silent, half HTTP: at most ${MAX_PROBE_CONNECTIONS} connections at once, all probed well within the cap`, async () => {
  mostAtOnce = 0;
  const ports = Array.from({ length: MANY }, (_, i) => open(MANY_FROM + i, i % 2 === 0 ? 'HTTP/1.1 200 OK' : null));
  const started = performance.now();
  await gatherFacts(IP, ports, { ptr: null, trustRoots: [] });
  const ms = performance.now() - started;
  console.log(
    `${MANY} ports: ${ms.toFixed(0)} ms, ${listeners.reduce((sum, listener) => sum + listener.accepted, 0)} connections so far, at most ${mostAtOnce} at once`,
  );
  // A listener hears of a close a moment after the probe freed its slot, so the
  // slot's next connection may be counted first: a few over the bound, never hundreds.
  expect(mostAtOnce).toBeLessThanOrEqual(MAX_PROBE_CONNECTIONS + 8);
  expect(mostAtOnce).toBeGreaterThan(MAX_PROBE_CONNECTIONS / 2); // they do run side by side
  ports.forEach((port, i) => {
    expect(port.risk?.severity).toBe('info');
    if (i % 2 === 0) expect(port.facts?.http).toMatchObject({ status: 200, title: 'Many' });
    else expect(port.facts).toBeUndefined();
  });
  expect(ms).toBeLessThan(FACTS_CAP_MS - 500);
});

it('never rejects: no open port, a port nobody listens on, an address that is not one', async () => {
  await expect(gatherFacts(IP, [], { ptr: null })).resolves.toBeUndefined();
  const refused = open(1, null);
  await gatherFacts(IP, [refused], { ptr: null, trustRoots: [] });
  expect(refused.facts).toBeUndefined();
  expect(refused.risk?.severity).toBe('info');
  const nowhere = open(80, 'HTTP/1.1 200 OK');
  await expect(gatherFacts('not-an-address', [nowhere], { ptr: 'x.test', trustRoots: ['not a certificate'] })).resolves.toBeUndefined();
  expect(nowhere.risk?.severity).toBe('info');
});
