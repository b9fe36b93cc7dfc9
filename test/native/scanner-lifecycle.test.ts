// The scanner's life around the sweep: time budgets, cancellation, argument
// checks, failures, descriptor hygiene, low ulimit -n, and a process that
// must be free to exit. Real addon, real sockets, a network-namespace host.
import { execFile, execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { expect, it } from 'vitest';

import { FAST_PORTS } from '../../src/api/scan-ports.js';
import type { ScanChunk, ScanSummary } from '../../src/native/scanner.js';
import { ALL_PORTS, mismatches, statesOf } from '../../support/scan-compare.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const execFileAsync = promisify(execFile);
const CHILD = fileURLToPath(new URL('./children/scan-child.ts', import.meta.url));

const scanner = createTestScanner();
const host = useNetnsHost();

function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

/** Runs the scanner in a child process (optionally under `ulimit -n`), returns its JSON line. */
async function runChild(
  request: object,
  ulimit?: number,
  netns?: string,
): Promise<{
  summary?: ScanSummary;
  stats?: { budget: number; fdLimit: number; localRetries: number };
  emfileHeld?: number;
  error?: { code: string; errno: number; syscall: string; message: string };
}> {
  const node = `${process.execPath} --import tsx ${CHILD} '${JSON.stringify(request)}'`;
  const script = ulimit === undefined ? `exec ${node}` : `ulimit -n ${ulimit} && exec ${node}`;
  const command = netns === undefined ? ['bash', '-c', script] : ['ip', 'netns', 'exec', netns, 'bash', '-c', script];
  const { stdout } = await execFileAsync(command[0]!, command.slice(1), { timeout: 60_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

it('ends incomplete with partial results when the time budget runs out', async () => {
  const chunks: ScanChunk[] = [];
  // Closed and open ports answer at once; the filtered range after them
  // needs 2 x 100 ms per port, which cannot fit in 150 ms.
  const ports = [...ALL_PORTS.slice(0, 2000), ...Array.from({ length: 1000 }, (_, i) => 20000 + i), ...ALL_PORTS.slice(30000)];
  const summary = await scanner.scan({ ip: host().ipv4, ports, budgetMs: 150, timeouts: { minMs: 100 } }, (c) => chunks.push(c)).done;
  expect(summary.status).toBe('incomplete');
  expect(summary.portsScanned).toBeGreaterThan(0);
  expect(summary.portsScanned).toBeLessThan(ports.length);
  expect(summary.chunksComplete).toBeLessThan(summary.totalChunks);
  expect(summary.chunksComplete).toBeGreaterThan(0);
  expect(chunks.some((c) => !c.complete)).toBe(true);
  expect(summary.open.map((p) => p.port)).toEqual(expect.arrayContaining([22, 25, 80]));
  // What it did find is right.
  const found = new Map([...summary.open, ...summary.filtered].map((p) => [p.port, p.state]));
  for (const [port, state] of found) expect(state).toBe(host().stateOf(port));
});

it('slows the sweep to the pace of a slow JavaScript consumer (bounded queue)', async () => {
  // 1,024 chunks of 64 ports; the consumer blocks its thread 2 ms per chunk.
  const blockMs = 2;
  let consumed = 0;
  const summary = await scanner.scan({ ip: host().ipv4, ports: [...ALL_PORTS], chunkSize: 64, banners: false }, () => {
    const until = performance.now() + blockMs;
    while (performance.now() < until);
    consumed++;
  }).done;
  expect(summary.status).toBe('complete');
  expect(consumed).toBe(1024);
  // Unbounded, the engine would finish in ~0.6 s whatever the consumer does.
  // Bounded, it can run ahead only by the event queue (64), its outbox (2)
  // and the chunks its in-flight window spans (512 / 64 = 8), plus slack.
  const ahead = 64 + 2 + 8 + 10;
  expect(summary.durationMs).toBeGreaterThanOrEqual((1024 - ahead) * blockMs);
});

it('cancels promptly and releases every socket', async () => {
  const before = openDescriptors();
  let cancelledAt = 0;
  const handle = scanner.scan({ ip: host().ipv4, ports: [...ALL_PORTS] }, (chunk) => {
    if (chunk.index >= 0 && cancelledAt === 0) {
      cancelledAt = performance.now();
      handle.cancel();
    }
  });
  const summary = await handle.done;
  expect(summary.status).toBe('cancelled');
  expect(summary.portsScanned).toBeLessThan(65535);
  expect(performance.now() - cancelledAt).toBeLessThan(500);
  expect(scanner.stats().inFlight).toBe(0);
  expect(openDescriptors()).toBeLessThanOrEqual(before);
});

it('leaks no socket after hundreds of scans', async () => {
  const before = openDescriptors();
  for (let round = 0; round < 10; round++) {
    const batch = Array.from({ length: 30 }, (_, i) => scanner.scan({ ip: i % 2 ? host().ipv4 : host().ipv6, ports: FAST_PORTS, banners: false }).done);
    for (const summary of await Promise.all(batch)) {
      expect(mismatches(statesOf(summary, FAST_PORTS), (port) => host().stateOf(port))).toEqual([]);
    }
  }
  expect(scanner.stats()).toMatchObject({ inFlight: 0, scans: 0 });
  expect(openDescriptors()).toBeLessThanOrEqual(before);
});

it('rejects bad arguments with TypeError at the call', () => {
  const bad: unknown[] = [
    { ip: 'not-an-ip', ports: [80] },
    { ip: '10.1', ports: [80] },
    { ip: 'fe80::1%eth0', ports: [80] },
    { ip: host().ipv4, ports: 80 },
    { ip: host().ipv4, ports: [0] },
    { ip: host().ipv4, ports: [65536] },
    { ip: host().ipv4, ports: [1.5] },
    { ip: host().ipv4, ports: ['80'] },
    { ip: host().ipv4, ports: [80, 80] },
    { ip: host().ipv4, ports: [80], chunkSize: 0 },
    { ip: host().ipv4, ports: [80], budgetMs: -1 },
    { ip: host().ipv4, ports: [80], timeouts: { minMs: 500, maxMs: 100 } },
    { ip: host().ipv4, ports: [80], banners: 'yes' },
    null,
  ];
  for (const request of bad) {
    expect(() => scanner.scan(request as never), JSON.stringify(request)).toThrow(TypeError);
  }
  expect(() => scanner.scan({ ip: host().ipv4, ports: [80] }, 'nope' as never)).toThrow(TypeError);
  expect(scanner.stats().scans).toBe(0);
});

it('scans an IPv4-mapped IPv6 address as IPv4', async () => {
  const summary = await scanner.scan({ ip: `::ffff:${host().ipv4}`, ports: [22, 23] }).done;
  expect(summary.ip).toBe(host().ipv4);
  expect(summary.open.map((p) => p.port)).toEqual([22]);
});

it('rejects a failed scan with code, errno and syscall', async () => {
  // A namespace with nothing but loopback: no route, so connect() fails at
  // once and no packet leaves.
  const empty = `ssfx-${process.pid}-noroute`;
  execFileSync('ip', ['netns', 'add', empty]);
  try {
    const result = await runChild({ ip: '198.18.255.254', ports: [80] }, undefined, empty);
    expect(result.error).toMatchObject({ code: 'ENETUNREACH', syscall: 'connect' });
    expect(result.error?.errno).toBeGreaterThan(0);
  } finally {
    execFileSync('ip', ['netns', 'del', empty]);
  }
});

it('comes out exact under ulimit -n 256, even when descriptors run out mid-scan', async () => {
  const result = await runChild({ ip: host().ipv4, exhaustFds: true }, 256);
  expect(result.stats?.fdLimit).toBe(256);
  expect(result.stats?.budget).toBeLessThan(256);
  expect(result.emfileHeld).toBeGreaterThan(0);
  expect(result.stats?.localRetries).toBeGreaterThan(0); // EMFILE was met and retried
  const summary = result.summary!;
  expect(summary.status).toBe('complete');
  expect(summary.portsScanned).toBe(65535);
  expect(mismatches(statesOf(summary, ALL_PORTS), (port) => host().stateOf(port))).toEqual([]);
});

it('lets a process that used the scanner exit on its own', async () => {
  // execFile resolves only when the child exits; the timeout fails the test otherwise.
  const started = performance.now();
  const result = await runChild({ ip: host().ipv6, ports: FAST_PORTS });
  expect(result.summary?.status).toBe('complete');
  expect(performance.now() - started).toBeLessThan(30_000);
});
