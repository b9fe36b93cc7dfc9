// The scan defaults the addon exports (declared once, in
// native/core/scan_spec.h) against what a scan does when a request leaves
// those fields out, and both they and the engine's defaults against the
// README's tables. Real addon, real sockets, 127.0.0.1 only.
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { DEEP_PORTS } from '../../src/api/scan-ports.js';
import { native } from '../../src/native/binding.js';
import type { ScanRequest } from '../../src/native/scan-request.js';
import type { ScanChunk } from '../../src/native/scanner.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const IP = '127.0.0.1';
const GREETING = 'HELLO-from-scan-defaults';
const defaults = native.scanDefaults;
const scanner = createTestScanner();

let server: Server;
let openPort: number;

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('error', () => {}); // the scanner resets its connections
    socket.end(`${GREETING}\r\n`);
  });
  await new Promise<void>((resolve) => server.listen({ host: IP, port: 0 }, resolve));
  openPort = (server.address() as { port: number }).port;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Scans `request` on 127.0.0.1; the size of each chunk (ports it settled) and the open port's banner. */
async function scanOf(request: Omit<ScanRequest, 'ip'>): Promise<{ chunkSizes: number[]; banner: string | null | undefined }> {
  const chunks: ScanChunk[] = [];
  const summary = await scanner.scan({ ...request, ip: IP }, (chunk) => chunks.push(chunk)).done;
  expect(summary.status).toBe('complete');
  const chunkSizes = chunks.sort((a, b) => a.index - b.index).map((chunk) => chunk.closed + chunk.open.length + chunk.filtered.length);
  return { chunkSizes, banner: summary.open.find((port) => port.port === openPort)?.banner };
}

it('exports the defaults, frozen: positive integers and a boolean', () => {
  expect(Object.isFrozen(defaults)).toBe(true);
  const { banners, ...numbers } = defaults;
  expect(typeof banners).toBe('boolean');
  expect(Object.keys(numbers).sort()).toEqual(['bannerTimeoutMs', 'chunkSize', 'initialTimeoutMs', 'maxTimeoutMs', 'minTimeoutMs']);
  for (const value of Object.values(numbers)) expect(Number.isInteger(value) && value > 0).toBe(true);
  expect(defaults.minTimeoutMs).toBeLessThanOrEqual(defaults.initialTimeoutMs);
  expect(defaults.initialTimeoutMs).toBeLessThanOrEqual(defaults.maxTimeoutMs);
});

it('scans without the optional fields as with the defaults given', async () => {
  // One listener of ours and, to fill a chunk, ports nothing listens on.
  const busy = new Set(listeningPorts(IP));
  const idle = DEEP_PORTS.filter((port) => !busy.has(port));
  const ports = [openPort, ...idle.slice(0, defaults.chunkSize)];
  const absent = await scanOf({ ports });
  const given = await scanOf({
    ports,
    chunkSize: defaults.chunkSize,
    timeouts: { initialMs: defaults.initialTimeoutMs, minMs: defaults.minTimeoutMs, maxMs: defaults.maxTimeoutMs },
    banners: defaults.banners,
    bannerTimeoutMs: defaults.bannerTimeoutMs,
  });
  expect(absent).toEqual(given);
  expect(absent.chunkSizes).toEqual([defaults.chunkSize, 1]);
  expect(absent.banner).toBe(defaults.banners ? GREETING : null);
});

it('bounds a given timeout by the default of the other one', async () => {
  // minTimeoutMs may not exceed maxTimeoutMs, so each default shows where a given value stops being accepted.
  const ports = [openPort];
  await expect(scanOf({ ports, timeouts: { minMs: defaults.maxTimeoutMs } })).resolves.toBeDefined();
  expect(() => scanner.scan({ ip: IP, ports, timeouts: { minMs: defaults.maxTimeoutMs + 1 } })).toThrow(/minTimeoutMs must not exceed maxTimeoutMs/);
  await expect(scanOf({ ports, timeouts: { maxMs: defaults.minTimeoutMs } })).resolves.toBeDefined();
  expect(() => scanner.scan({ ip: IP, ports, timeouts: { maxMs: defaults.minTimeoutMs - 1 } })).toThrow(/minTimeoutMs must not exceed maxTimeoutMs/);
});

/** The default column of the README's table row for `name` (the library's option and request tables). */
async function readmeDefault(): Promise<(name: string) => string> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  return (name) => new RegExp(`^\\| \`${name}\` \\| ([^|]+) \\|`, 'm').exec(readme)?.[1]?.trim() ?? '';
}

it('are the defaults the README states for scanner.scan()', async () => {
  const stated = await readmeDefault();
  expect(stated('chunkSize')).toBe(String(defaults.chunkSize));
  expect(stated('timeouts')).toBe(`\`{ initialMs: ${defaults.initialTimeoutMs}, minMs: ${defaults.minTimeoutMs}, maxMs: ${defaults.maxTimeoutMs} }\``);
  expect(stated('banners')).toBe(`\`${defaults.banners}\``);
  expect(stated('bannerTimeoutMs')).toBe(String(defaults.bannerTimeoutMs));
});

it('are the engine defaults the README states for createScanner()', async () => {
  const stated = await readmeDefault();
  const engine = native.engineDefaults;
  expect(stated('perTargetInFlight')).toBe(String(engine.perTargetInFlight));
  expect(stated('initialRate')).toBe(String(engine.initialRate));
  expect(stated('poller')).toBe(`\`${engine.poller}\``);
  expect(stated('engine')).toBe(`\`${engine.engine}\``);
  expect(engine.connectThreads).toBe(-1);
  expect(stated('connectThreads')).toBe('cores − 1');
  expect(engine.maxInFlight).toBe(0);
  expect(stated('maxInFlight')).toMatch(/^from `RLIMIT_NOFILE`/);
});
