// Choosing the scanner's readiness backend through the library: the
// backends this platform's build has, a TypeError for one it lacks or a name
// that is none, and a scan on the chosen one. Loopback only, so it runs on
// a Mac too (README: Installing the package). The scanning suites run on
// each backend in their own projects (vitest.config.ts); this file checks
// the choice itself. Real addon, 127.0.0.1 only.
import { afterAll, beforeAll, expect, it } from 'vitest';

import { native } from '../../src/native/binding.js';
import { availablePollers, createScanner } from '../../src/native/scanner.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';

const IP = '127.0.0.1';
const PORTS = [20001, 20002, 20003];
const linux = process.platform === 'linux';
const expected = linux ? ['epoll', 'poll'] : ['kqueue', 'poll'];
const lacking = linux ? 'kqueue' : 'epoll';
let listeners: Listeners;

beforeAll(async () => {
  listeners = await listenOn(IP, PORTS, 'HELLO-poll');
});
afterAll(() => listeners.close());

it("lists the platform's backend first, then poll: epoll on Linux, kqueue on macOS and the BSDs", () => {
  expect(availablePollers).toEqual(expected);
  expect(Object.isFrozen(native.pollers)).toBe(true);
});

it('throws a TypeError for a poller this build lacks or that does not exist, before any engine starts', () => {
  const platform = `${process.platform}-${process.arch}`;
  expect(() => createScanner({ poller: lacking })).toThrow(
    new TypeError(`poller ${lacking} is not available on ${platform} (this build has ${expected.join(', ')})`),
  );
  expect(() => createScanner({ poller: 'select' as never })).toThrow(new TypeError('poller must be one of auto, epoll, kqueue, poll'));
  // The addon checks again, for callers of the binding itself.
  expect(() => native.configure({ poller: lacking })).toThrow(
    new TypeError(`poller ${lacking} is not available in this build (it has ${expected.join(', ')})`),
  );
  expect(() => native.configure({ poller: 7 as never })).toThrow(TypeError);
  expect(native.stats()).toBeNull();
});

it('scans on the poller it was given, exactly, and keeps it for the process', async () => {
  const scanner = createScanner({ poller: 'poll' });
  expect(scanner.stats().poller).toBe('poll');
  const ports = Array.from({ length: 2000 }, (_, i) => 19001 + i);
  const summary = await scanner.scan({ ip: IP, ports }).done;
  expect(summary.status).toBe('complete');
  expect(summary.open.map((port) => [port.port, port.banner])).toEqual(PORTS.map((port) => [port, 'HELLO-poll']));
  expect(summary.closed).toBe(ports.length - PORTS.length);
  expect(() => createScanner({ poller: 'epoll' })).toThrow(/already running/);
  expect(createScanner({ poller: 'poll' }).stats().poller).toBe('poll');
});
