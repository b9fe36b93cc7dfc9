// uWebSockets.js is loaded from its native binary or not at all: its
// package's silent JavaScript fallback must never serve traffic.
import { expect, it } from 'vitest';

import { loadUws } from '../../src/http/uws.js';

it('loads the native binary of this platform', () => {
  const uws = loadUws();
  expect(typeof uws.App).toBe('function');
  expect(typeof uws.us_socket_local_port).toBe('function');
});

it('refuses a platform without a binary, naming platform and Node version', () => {
  const target = { platform: 'linux', arch: 'mips', abi: '115', nodeVersion: 'v20.20.2' };
  expect(() => loadUws(target)).toThrow(/no native binary that loads on linux-mips with Node v20\.20\.2 .*does not run on its JavaScript fallback/);
});
