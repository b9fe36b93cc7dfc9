// What a scan learned of its target's timing (summary.timing) and a later
// scan that starts from it (request.timing): the pace and the RTT estimate
// carry over, the engine's live state wins over a seed, bad values throw.
// Real addon, real sockets: 127.0.0.1 and a network-namespace host.
import { createServer, type Server } from 'node:net';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { DEEP_PORTS } from '../../src/api/scan-ports.js';
import { native } from '../../src/native/binding.js';
import type { LearnedTiming } from '../../src/native/scan-request.js';
import type { ScanSummary } from '../../src/native/scanner.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const IP = '127.0.0.1';
const scanner = createTestScanner();
const host = useNetnsHost();

let server: Server;
let openPort: number;
/** Loopback ports nothing listens on: each answers with an RST at once. */
let idle: number[];

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('error', () => {}); // the scanner resets its connections
    socket.end('HELLO-from-learned-timing\r\n');
  });
  await new Promise<void>((resolve) => server.listen({ host: IP, port: 0 }, resolve));
  openPort = (server.address() as { port: number }).port;
  const busy = new Set(listeningPorts(IP));
  idle = DEEP_PORTS.filter((port) => !busy.has(port));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function scanLoopback(ports: number[], timing?: LearnedTiming): Promise<ScanSummary> {
  return scanner.scan({ ip: IP, ports, banners: false, timing }).done;
}

it('reports the pace and RTT estimate the scan left', async () => {
  const summary = await scanner.scan({ ip: IP, ports: [openPort, ...idle.slice(0, 16)] }).done;
  expect(summary.status).toBe('complete');
  const { rate, srttUs, rttvarUs, samples } = summary.timing;
  expect(Object.keys(summary.timing).sort()).toEqual(['rate', 'rttvarUs', 'samples', 'srttUs']);
  expect(samples).toBeGreaterThanOrEqual(17); // every port answered, each one an RTT sample
  expect(Number.isInteger(samples)).toBe(true);
  expect(srttUs).toBeGreaterThan(0);
  expect(Number.isInteger(srttUs)).toBe(true);
  expect(rttvarUs).toBeGreaterThanOrEqual(0);
  expect(rate).toBeGreaterThan(0);
});

it('reports no RTT sample for a target that never answered', async () => {
  // No ports: the scan ends at once, with the state a new target starts from.
  const summary = await scanLoopback([]);
  expect(summary.status).toBe('complete');
  expect(summary.timing).toEqual({ rate: expect.any(Number), srttUs: 0, rttvarUs: 0, samples: 0 });
  expect(summary.timing.rate).toBeGreaterThan(0); // the engine's initialRate
});

it('starts a new target from the timing given: an empty scan reports it back', async () => {
  const unseeded = (await scanLoopback([])).timing;
  const extreme = { rate: 2 ** 24, srttUs: 60_000_000, rttvarUs: 60_000_000, samples: Number.MAX_SAFE_INTEGER };
  expect((await scanLoopback([], extreme)).timing).toEqual(extreme);
  // rate 0 is "no rate learned": slow start from initialRate, as unseeded.
  expect((await scanLoopback([], { rate: 0, srttUs: 1234, rttvarUs: 567, samples: 3 })).timing).toEqual({
    rate: unseeded.rate,
    srttUs: 1234,
    rttvarUs: 567,
    samples: 3,
  });
  // samples 0 is "no RTT learned": srttUs and rttvarUs mean nothing then.
  expect((await scanLoopback([], { rate: 5000, srttUs: 1234, rttvarUs: 567, samples: 0 })).timing).toEqual({
    rate: 5000,
    srttUs: 0,
    rttvarUs: 0,
    samples: 0,
  });
});

it('starts a scan seeded with an earlier scan timing at its pace, not from initialRate', async () => {
  // A sweep of 1,024 closed ports speeds up far beyond initialRate (slow start).
  const first = await scanLoopback(idle.slice(0, 1024));
  expect(first.status).toBe('complete');
  // A scan of 4 ports ends before slow start's first epoch: without a seed it
  // ends at initialRate, far below the first scan's pace...
  const unseeded = await scanLoopback(idle.slice(2000, 2004));
  expect(unseeded.timing.rate).toBeLessThan(first.timing.rate / 4);
  expect(unseeded.timing.samples).toBe(4);
  // ...and seeded, at the pace the first scan ended at (4 ports send no
  // canary, so nothing can cut it), with its RTT estimate to build on.
  const seeded = await scanLoopback(idle.slice(3000, 3004), first.timing);
  expect(seeded.status).toBe('complete');
  expect(seeded.timing.rate).toBeGreaterThanOrEqual(first.timing.rate);
  expect(seeded.timing.samples).toBe(first.timing.samples + 4);
});

it('grows a seeded pace slowly instead of doubling it as slow start would', async () => {
  // The learned rate may sit just below where the target drops probes.
  // 1,024 ports at 20,000/s or more take at most ~50 ms; growing by 1% per
  // epoch (5 ms at least), the pace needs 70 epochs (350 ms) to double,
  // and no growth happens while the scan cannot use the pace it has.
  const seed = { rate: 20_000, srttUs: 100, rttvarUs: 50, samples: 10 };
  const seeded = await scanLoopback(idle.slice(6000, 7024), seed);
  expect(seeded.status).toBe('complete');
  expect(seeded.timing.rate).toBeGreaterThanOrEqual(seed.rate * 0.1); // cut by a loss at most to a tenth
  expect(seeded.timing.rate).toBeLessThan(2 * seed.rate);
});

it('starts the RTT estimate from the seed: 4 fast answers barely move a slow srtt', async () => {
  // RFC 6298 smoothing keeps 7/8 of the estimate per sample: 500 ms stays
  // above 250 ms after four loopback answers; unseeded it would be microseconds.
  const seeded = await scanLoopback(idle.slice(4000, 4004), { rate: 0, srttUs: 500_000, rttvarUs: 100_000, samples: 50 });
  expect(seeded.status).toBe('complete');
  expect(seeded.timing.samples).toBe(54);
  expect(seeded.timing.srttUs).toBeGreaterThan(250_000);
  expect(seeded.timing.srttUs).toBeLessThan(500_000);
});

it('decides filtered ports at the learned timeout instead of waiting out the initial one', async () => {
  const learned = await scanner.scan({ ip: host().ipv4, ports: [...host().listeners.map((l) => l.port), 1, 2, 3, 4] }).done;
  expect(learned.timing.samples).toBeGreaterThan(0);
  // Four dropped ports: without an RTT sample every silence waits the
  // initial timeout (5 s), so they cannot be decided within a 2 s budget.
  const ports = [20000, 20001, 20002, 20003];
  const request = { ip: host().ipv4, ports, budgetMs: 2000, timeouts: { initialMs: 5000, minMs: 100, maxMs: 5000 } };
  const unseeded = await scanner.scan(request).done;
  expect(unseeded.status).toBe('incomplete');
  expect(unseeded.filtered).toEqual([]);
  const seeded = await scanner.scan({ ...request, timing: learned.timing }).done;
  expect(seeded.status).toBe('complete');
  expect(seeded.filtered.map((p) => p.port)).toEqual(ports);
  expect(seeded.durationMs).toBeLessThan(2000);
});

it('keeps the live state of a target another scan is probing: the seed does not replace it', async () => {
  // A seed that would crawl (20/s) with a 30 s RTT, given while a long
  // sweep of the same target is under way.
  const crawl = { rate: 20, srttUs: 30_000_000, rttvarUs: 0, samples: 1 };
  let firstChunk!: () => void;
  const sweeping = new Promise<void>((resolve) => (firstChunk = resolve));
  let longEnded = false;
  const long = scanner.scan({ ip: IP, ports: idle.slice(8000, 48000), banners: false }, () => firstChunk()).done;
  void long.then(() => {
    longEnded = true;
  });
  await sweeping;
  const seeded = await scanLoopback(idle.slice(200, 204), crawl);
  expect(longEnded).toBe(false); // it ran alongside the whole time
  expect(seeded.status).toBe('complete');
  expect(seeded.timing.rate).toBeGreaterThan(10 * crawl.rate);
  expect(seeded.timing.srttUs).toBeLessThan(100_000);
  expect(seeded.timing.samples).toBeGreaterThan(crawl.samples + 4);
  expect((await long).status).toBe('complete');
});

const valid: LearnedTiming = { rate: 1000, srttUs: 500, rttvarUs: 250, samples: 10 };
const invalid: [string, unknown, RegExp][] = [
  ['null', null, /^timing must be an object$/],
  ['a number', 7, /^timing must be an object$/],
  ['an array', [1, 2, 3, 4], /^timing must be an object$/],
  ['a negative rate', { ...valid, rate: -1 }, /^timing\.rate must be a number from 0 to 16777216$/],
  ['a rate above 2^24', { ...valid, rate: 2 ** 24 + 1 }, /^timing\.rate must be a number from 0 to 16777216$/],
  ['a NaN rate', { ...valid, rate: Number.NaN }, /^timing\.rate must be a number from 0 to 16777216$/],
  ['an infinite rate', { ...valid, rate: Number.POSITIVE_INFINITY }, /^timing\.rate must be a number from 0 to 16777216$/],
  ['a string srttUs', { ...valid, srttUs: '500' }, /^timing\.srttUs must be a number from 0 to 60000000$/],
  ['srttUs above 60 s', { ...valid, srttUs: 60_000_001 }, /^timing\.srttUs must be a number from 0 to 60000000$/],
  ['no rttvarUs', { rate: 1000, srttUs: 500, samples: 10 }, /^timing\.rttvarUs must be a number from 0 to 60000000$/],
  ['a negative rttvarUs', { ...valid, rttvarUs: -0.5 }, /^timing\.rttvarUs must be a number from 0 to 60000000$/],
  ['fractional samples', { ...valid, samples: 1.5 }, /^timing\.samples must be an integer from 0 to 9007199254740991$/],
  ['negative samples', { ...valid, samples: -1 }, /^timing\.samples must be an integer from 0 to 9007199254740991$/],
  ['samples beyond 2^53 - 1', { ...valid, samples: 2 ** 53 }, /^timing\.samples must be an integer from 0 to 9007199254740991$/],
];

it.each(invalid)('throws TypeError for a timing with %s, in TypeScript and in the addon', (_, timing, message) => {
  const scan = () => scanner.scan({ ip: IP, ports: [openPort], timing: timing as LearnedTiming });
  expect(scan).toThrow(TypeError);
  expect(scan).toThrow(message);
  // The addon's own check, for a caller that bypasses the TypeScript one.
  const start = () => native.startScan({ address: Uint8Array.of(127, 0, 0, 1), ports: Uint16Array.of(openPort), timing: timing as LearnedTiming }, () => {});
  expect(start).toThrow(TypeError);
  expect(start).toThrow(message);
});
