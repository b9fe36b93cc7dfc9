// v2 streaming against the real server: a real EventSource client, scans
// of loopback callers, every event checked against the OpenAPI document.
import { connect } from 'node:net';

import { EventSource } from 'eventsource';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { validateResponse, validateSseEvent } from '../../support/openapi-validator.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

/** What the facts stage reads from this file's SSH banner. */
const SSH_FACTS = { protocol: '2.0', software: 'streamtest', comment: null };

let server: TestServer;
let listeners: Listeners;

beforeAll(async () => {
  // Keep-alives every 20 ms: a deep scan of loopback takes about 200 ms on a fast machine.
  server = await startTestServer({ sseKeepAliveSeconds: 0.02 });
  listeners = await listenOn('127.0.0.21', [22, 2375], 'SSH-2.0-streamtest');
});
afterAll(async () => {
  await listeners?.close();
  await server?.close();
});

interface Received {
  name: string;
  id: string;
  data: Record<string, unknown>;
}

/** The chunk_index of every progress event, sorted. */
function chunkIndexes(events: Received[]): number[] {
  return events.flatMap((e) => (e.name === 'scan:progress' && e.data.chunk_index !== undefined ? [e.data.chunk_index as number] : [])).sort((a, b) => a - b);
}

/** Opens an EventSource from `caller` and collects events until the terminal one. */
function stream(caller: string, path: string): Promise<Received[]> {
  const fetch = callerFetch(caller);
  return new Promise((resolve, reject) => {
    const events: Received[] = [];
    const source = new EventSource(`${server.url}${path}`, { fetch: fetch as never });
    const on = (name: string) => (message: MessageEvent) => {
      const data = JSON.parse(message.data) as Record<string, unknown>;
      validateSseEvent(name, data);
      events.push({ name, id: message.lastEventId, data });
      if (name === 'scan:complete' || name === 'scan:failed') {
        source.close(); // otherwise EventSource reconnects, which would start a new scan
        resolve(events);
      }
    };
    for (const name of ['scan:queued', 'scan:progress', 'scan:complete', 'scan:failed']) source.addEventListener(name, on(name));
    source.onerror = (error) => {
      source.close();
      reject(new Error(`stream failed: ${String((error as { message?: string }).message)}`));
    };
  });
}

describe('GET /v2/fast and /v2/deep', () => {
  it('starts a scan and streams queued, progress and complete, then closes', async () => {
    const events = await stream('127.0.0.21', '/v2/fast');
    expect(events[0]?.name).toBe('scan:queued');
    expect(events.at(-1)?.name).toBe('scan:complete');
    expect(events.slice(1, -1).every((e) => e.name === 'scan:progress')).toBe(true);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
    const last = events.at(-1)!.data;
    expect(last).toMatchObject({ ip: '127.0.0.21', status: 'complete' });
    expect(last.ports_open).toEqual([
      { port: 22, state: 'open', service: 'ssh', banner: 'SSH-2.0-streamtest', facts: { ssh: SSH_FACTS }, risk: expect.objectContaining({ severity: 'info' }) },
      {
        port: 2375,
        state: 'open',
        service: 'docker',
        banner: 'SSH-2.0-streamtest',
        facts: { ssh: SSH_FACTS },
        risk: expect.objectContaining({ severity: 'info' }),
      },
    ]);
    const finalProgress = events.filter((e) => e.name === 'scan:progress').at(-1)!.data;
    expect(finalProgress).toMatchObject({ chunks_complete: 4, total_chunks: 4 });
    expect(chunkIndexes(events)).toEqual([0, 1, 2, 3]);
  });

  it('names each finished chunk of a deep scan once in its progress events', async () => {
    const events = await stream('127.0.0.29', '/v2/deep');
    expect(events.at(-1)).toMatchObject({ name: 'scan:complete', data: { status: 'complete' } });
    expect(chunkIndexes(events)).toEqual(Array.from({ length: 64 }, (_, i) => i));
    // chunks_complete counts the chunks named so far
    const progress = events.filter((e) => e.name === 'scan:progress' && e.data.chunk_index !== undefined);
    expect(progress.map((e) => e.data.chunks_complete)).toEqual(Array.from({ length: 64 }, (_, i) => i + 1));
    // Each carries the eta the target's path gives (it answered before any
    // chunk was done): whole seconds, down to 0 as the last chunk is done.
    const etas = progress.map((e) => e.data.eta_seconds);
    expect(etas.every((eta) => Number.isInteger(eta) && (eta as number) >= 0)).toBe(true);
    expect(etas.at(-1)).toBe(0);
  });

  it('attaches to a scan started by a v1 POST', async () => {
    const fetch = callerFetch('127.0.0.22');
    await fetch(`${server.url}/v1/deep`, { method: 'POST' });
    const events = await stream('127.0.0.22', '/v2/deep');
    expect(server.logs.filter((l) => l.event === 'scan_queued' && l.ip === '127.0.0.22')).toHaveLength(1);
    expect(server.logs.filter((l) => l.event === 'scan_joined' && l.ip === '127.0.0.22' && l.origin === 'v2')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ name: 'scan:complete', data: { scan_type: 'deep', status: 'complete' } });
    const result = await pollUntilFinal(fetch, `${server.url}/v1/deep`);
    expect(result).toEqual(events.at(-1)!.data);
  });

  it('sends keep-alive comments while the scan runs', async () => {
    const text = await rawStream('127.0.0.23', '/v2/deep');
    expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(text).toMatch(/content-type: text\/event-stream/i);
    expect(text).toContain(': keep-alive\n\n');
    expect(text).toContain('event: scan:complete');
  });

  it('cleans up after a client that disconnects', async () => {
    const socket = connect({ host: '127.0.0.1', port: server.server.port, localAddress: '127.0.0.24' });
    socket.write('GET /v2/deep HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    socket.destroy();
    await pollUntilFinal(callerFetch('127.0.0.24'), `${server.url}/v1/deep`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.logs.some((l) => l.event === 'request' && l.ip === '127.0.0.24' && l.status === 'aborted')).toBe(true);
  });

  it('holds bounded memory for a reader that stops reading', async () => {
    // 8,000 open ports, 128 in every chunk: progress events carry what was
    // found so far, ~16 MB in all, more than the socket buffers hold.
    const caller = '127.0.0.26';
    const busy = new Set(listeningPorts(caller));
    const ports = Array.from({ length: 8000 }, (_, i) => 1024 + i * 8).filter((port) => !busy.has(port));
    const many = await listenOn(caller, ports, 'x');
    try {
      const socket = connect({ host: '127.0.0.1', port: server.server.port, localAddress: caller });
      socket.write('GET /v2/deep HTTP/1.1\r\nHost: x\r\n\r\n');
      socket.pause(); // reads nothing until the scan is over
      const result = await pollUntilFinal(callerFetch(caller), `${server.url}/v1/deep`, 60_000);
      expect((result.ports_open as unknown[]).length).toBe(ports.length + busy.size);

      let received = '';
      const ended = new Promise<void>((resolve) => {
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          received += chunk;
          if (received.includes('event: scan:complete')) resolve();
        });
        socket.resume();
      });
      await ended;
      await new Promise((resolve) => setTimeout(resolve, 200)); // the rest of the final event
      socket.destroy();
      const progress = received.split('event: scan:progress').length - 1;
      // A reader that keeps up gets one progress event per chunk and more.
      expect(progress).toBeLessThan(64);
      expect(received).toContain('event: scan:complete');
      expect(received).toContain(`"port":${ports.at(-1)}`);
    } finally {
      await many.close();
    }
  });

  it('answers a refused start with the JSON error, not a stream', async () => {
    const strict = await startTestServer({ allowPrivateTargets: false });
    try {
      const response = await callerFetch('127.0.0.25')(`${strict.url}/v2/fast`);
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toBe('application/json');
      const body = await response.json();
      validateResponse('GET', '/v2/fast', 422, body);
      expect(body).toMatchObject({ error: 'invalid_target' });
    } finally {
      await strict.close();
    }
  });
});

/** Reads a whole stream over a plain socket (headers included) until the server closes it. */
function rawStream(caller: string, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.server.port, localAddress: caller });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      text += chunk;
      if (text.includes('event: scan:complete') || text.includes('event: scan:failed')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
  });
}
