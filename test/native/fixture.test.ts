import { execFileSync } from 'node:child_process';
import { connect } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createNetnsHost, type NetnsHost, type PortState } from '../../support/netns-host.js';
import { nmapScan, parsePortRanges } from '../../support/nmap.js';

const TIMEOUT_MS = 60_000;

type ConnectOutcome = 'connected' | 'refused' | 'timeout';

/** Connects once and reports how the attempt ended within `timeoutMs`. */
function connectOutcome(host: string, port: number, timeoutMs: number): Promise<ConnectOutcome> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    function finish(outcome: ConnectOutcome): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    }
    socket.once('connect', () => finish('connected'));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') finish('refused');
      else {
        clearTimeout(timer);
        reject(err);
      }
    });
  });
}

/** Connects, optionally sends `request`, and resolves with the first line received. */
function firstLine(host: string, port: number, request?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    let received = '';
    socket.setEncoding('latin1');
    socket.setTimeout(5_000, () => socket.destroy(new Error(`no line from [${host}]:${port} within 5 s`)));
    socket.once('connect', () => {
      if (request !== undefined) socket.write(request);
    });
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(received.slice(0, end));
      }
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`[${host}]:${port} closed without a full line: ${JSON.stringify(received)}`)));
  });
}

/** Ports whose nmap state differs from the fixture's truth. */
function mismatches(host: NetnsHost, states: Map<number, PortState>): string[] {
  const diffs: string[] = [];
  for (let port = 1; port <= 65535; port++) {
    const expected = host.stateOf(port);
    const actual = states.get(port);
    if (actual !== expected) diffs.push(`${port}: nmap ${actual ?? 'missing'}, expected ${expected}`);
  }
  return diffs;
}

describe('netns host fixture', () => {
  let host: NetnsHost;

  beforeAll(async () => {
    host = await createNetnsHost();
  }, TIMEOUT_MS);

  afterAll(async () => {
    await host?.close();
  }, TIMEOUT_MS);

  it('uses only the benchmarking and fixture ULA ranges', () => {
    expect(host.name).toMatch(new RegExp(`^ssfx-${process.pid}-\\d+$`));
    expect(host.ipv4).toMatch(/^198\.1[89]\.\d+\.\d+$/);
    expect(host.ipv6).toMatch(/^fd5e:1f5c:[0-9a-f]+::2$/);
  });

  it('reports a consistent truth', () => {
    const truth = host.truth();
    expect(truth.size).toBe(1000 + host.listeners.length);
    for (const [port, state] of truth) expect(host.stateOf(port)).toBe(state);
    expect(host.stateOf(22)).toBe('open');
    expect(host.stateOf(20500)).toBe('filtered');
    expect(host.stateOf(23)).toBe('closed');
  });

  it(
    'sends the SSH banner over IPv4 and IPv6',
    async () => {
      for (const ip of [host.ipv4, host.ipv6]) {
        expect(await firstLine(ip, 22)).toBe('SSH-2.0-selfscan_fixture');
      }
    },
    TIMEOUT_MS,
  );

  it(
    'answers with the banner each listener declares',
    async () => {
      for (const listener of host.listeners) {
        if (listener.banner === null) {
          expect(await connectOutcome(host.ipv4, listener.port, 300)).toBe('connected');
          continue;
        }
        const request = listener.kind === 'http' ? 'GET / HTTP/1.0\r\n\r\n' : undefined;
        expect(await firstLine(host.ipv4, listener.port, request)).toBe(listener.banner);
      }
    },
    TIMEOUT_MS,
  );

  it(
    'does not answer on a filtered port within 300 ms',
    async () => {
      expect(await connectOutcome(host.ipv4, 20500, 300)).toBe('timeout');
      expect(await connectOutcome(host.ipv6, 20500, 300)).toBe('timeout');
    },
    TIMEOUT_MS,
  );

  it(
    'refuses a closed port',
    async () => {
      expect(await connectOutcome(host.ipv4, 23, 2_000)).toBe('refused');
      expect(await connectOutcome(host.ipv6, 23, 2_000)).toBe('refused');
    },
    TIMEOUT_MS,
  );

  it.each([
    ['IPv4', 'ipv4'],
    ['IPv6', 'ipv6'],
  ] as const)(
    'agrees with nmap on all 65,535 ports over %s',
    async (_family, address) => {
      const { states } = await nmapScan(host[address]);
      expect(states.size).toBe(65535);
      expect(mismatches(host, states)).toEqual([]);
    },
    TIMEOUT_MS,
  );

  it(
    'removes the namespace on close, idempotently',
    async () => {
      await host.close();
      await host.close();
      const names = execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
        .split('\n')
        .map((line) => line.split(' ')[0]);
      expect(names).not.toContain(host.name);
    },
    TIMEOUT_MS,
  );
});

describe('parsePortRanges', () => {
  it('expands single ports and ranges', () => {
    expect(parsePortRanges('1-3,5,7-8')).toEqual([1, 2, 3, 5, 7, 8]);
  });

  it('rejects malformed input', () => {
    expect(() => parsePortRanges('5-1')).toThrow();
    expect(() => parsePortRanges('0')).toThrow();
    expect(() => parsePortRanges('a')).toThrow();
  });
});
