// What only Node's front does, whichever front the project runs: slow
// request heads and bodies are answered 408 (`request_timeout`) and closed
// (RFC 9110 §15.5.9), its listen queue holds a burst of connects and it
// takes several of them from the queue in one turn of the event loop, and
// the choice of front is told at /healthz, in /metrics and in the log. The shapes both fronts see are in hostile-http.
import { execFileSync } from 'node:child_process';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { DEFAULT_CONFIG } from '../../src/config/config.js';
import { EXTRA_ACCEPT_LANES } from '../../src/http/node-accept-lanes.js';
import { LISTEN_BACKLOG } from '../../src/http/node-front.js';
import { rawExchange } from '../../support/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

let server: TestServer;
let port: number;
beforeAll(async () => {
  server = await startTestServer({ http: { ...DEFAULT_CONFIG.http, server: 'node', headersTimeoutSeconds: 1, requestTimeoutSeconds: 2 } });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.close();
});

describe("Node's front", () => {
  it('answers a head that has not ended within headersTimeout 408, as JSON, and closes', async () => {
    const got = await rawExchange(port, 'GET /openapi.json HTTP/1.1\r\nHost: selfscan.test\r\n', { waitMs: 5000 });
    expect(got.statuses).toEqual([408]);
    expect(got.closed).toBe(true);
    expect(got.ms).toBeGreaterThanOrEqual(900);
    expect(got.ms).toBeLessThan(3500);
    expect(JSON.parse(got.text.slice(got.text.indexOf('\r\n\r\n') + 4))).toMatchObject({ error: 'request_timeout' });
    expect(got.text).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('answers a body that has not ended within requestTimeout 408 and closes', async () => {
    const head = 'POST /mcp HTTP/1.1\r\nHost: selfscan.test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    const got = await rawExchange(port, `${head}{"jsonrpc":`, { waitMs: 6000 });
    expect(got.statuses).toEqual([408]);
    expect(got.closed).toBe(true);
    expect(got.ms).toBeGreaterThanOrEqual(1900);
    expect(got.ms).toBeLessThan(4500);
  });

  it('keeps a connection that is idle between requests open, and serves it again', async () => {
    const first = await fetch(`${server.url}/openapi.json`);
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const second = await fetch(`${server.url}/openapi.json`);
    expect(second.status).toBe(200);
  });

  it('listens with a queue that holds a burst of a thousand connects (Node would say 511)', () => {
    // For a listening socket, ss's Send-Q column is its backlog: what the kernel granted of what listen() asked.
    const [state, , sendQ] = execFileSync('ss', ['-Hltn', `sport = :${port}`], { encoding: 'utf8' })
      .trim()
      .split(/\s+/);
    const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
    expect(state).toBe('LISTEN');
    expect(Number(sendQ)).toBe(Math.min(LISTEN_BACKLOG, somaxconn));
    expect(Number(sendQ)).toBeGreaterThan(1000);
  });

  it('accepts 1 + EXTRA_ACCEPT_LANES queued connections in one turn of its event loop (libuv alone accepts one)', async () => {
    const turnOfAccepts: number[] = [];
    let turn = 0;
    const accepted = (): void => {
      turnOfAccepts.push(turn);
    };
    subscribe('net.server.socket', accepted); // every net.Server's accept, the lanes' too
    const sockets: Socket[] = [];
    try {
      await new Promise((resolve) => setImmediate(resolve)); // now in a check phase: the next poll phase is a whole turn away
      // Each handshake completes in the kernel at connect(); all of them then wait in the accept queue until the poll phase.
      const queued = 2 * (1 + EXTRA_ACCEPT_LANES);
      for (let i = 0; i < queued; i++) sockets.push(connect(port, '127.0.0.1'));
      await new Promise<void>((resolve) => {
        setImmediate(() => {
          turn = 1; // the next turn's check phase: what came before was accepted in one poll phase
          resolve();
        });
      });
      await vi.waitFor(() => expect(turnOfAccepts).toHaveLength(queued));
      expect(turnOfAccepts.filter((at) => at === 0)).toHaveLength(1 + EXTRA_ACCEPT_LANES);
    } finally {
      unsubscribe('net.server.socket', accepted);
      for (const socket of sockets) socket.destroy();
    }
  });

  it('says which front it is at /healthz, in selfscan_info and in the log', async () => {
    const health = await (await fetch(`${server.url}/healthz`)).json();
    expect(health).toMatchObject({ ok: true, http_server: 'node' });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^selfscan_info\{[^}]*http_server="node"[^}]*\} 1$/m);
    expect(server.logs).toContainEqual(expect.objectContaining({ event: 'http_server', http_server: 'node', why: 'http.server is node' }));
    expect(server.logs).toContainEqual(expect.objectContaining({ event: 'listening', http_server: 'node' }));
  });
});
