// Choosing the scanner's probe engine through the library: a TypeError for
// a name that is none, `auto` as the default, and a scan on the engine
// chosen. The start refused for `syn` without CAP_NET_RAW, and `auto`'s
// fallback, need a process without the capability: the real server's test
// (test/integration/scanner-engine.test.ts) runs one under capsh. Real
// addon, 127.0.0.1 only.
import { afterAll, beforeAll, expect, it } from 'vitest';

import { native } from '../../src/native/binding.js';
import { createScanner } from '../../src/native/scanner.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';

const IP = '127.0.0.1';
const PORTS = [20011, 20012];
let listeners: Listeners;

beforeAll(async () => {
  listeners = await listenOn(IP, PORTS, 'HELLO-engine');
});
afterAll(() => listeners.close());

it('defaults to auto', () => {
  expect(native.engineDefaults.engine).toBe('auto');
});

it('throws a TypeError for an engine that does not exist, before any engine starts', () => {
  expect(() => createScanner({ engine: 'raw' as never })).toThrow(new TypeError('engine must be one of auto, syn, connect'));
  expect(() => createScanner({ engine: 7 as never })).toThrow(TypeError);
  expect(() => native.configure({ engine: 'raw' as never })).toThrow(TypeError); // the addon checks again
  expect(native.stats()).toBeNull();
});

it('scans on the engine it was given and keeps it for the process; auto then joins it', async () => {
  const scanner = createScanner({ engine: 'connect' });
  expect(scanner.stats().engine).toBe('connect');
  const ports = Array.from({ length: 200 }, (_, i) => 19801 + i).concat(PORTS);
  const summary = await scanner.scan({ ip: IP, ports }).done;
  expect(summary.status).toBe('complete');
  expect(summary.open.map((port) => [port.port, port.banner])).toEqual(PORTS.map((port) => [port, 'HELLO-engine']));
  expect(() => createScanner({ engine: 'syn' })).toThrow(/already running/);
  expect(createScanner({ engine: 'auto' }).stats().engine).toBe('connect');
});
