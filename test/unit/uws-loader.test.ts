// uWebSockets.js is loaded from its native binary or not at all: its
// package's silent JavaScript fallback must never serve traffic. The
// package ships binaries for Node 16, 18 and 20 (ABI 93, 108, 115): on
// those this Node loads one; on any other it is refused by name.
import { expect, it } from 'vitest';

import { loadUws } from '../../src/http/uws.js';

const SHIPPED_ABIS = ['93', '108', '115'];

it(`${SHIPPED_ABIS.includes(process.versions.modules) ? 'loads' : 'refuses'} the binary for this Node (ABI ${process.versions.modules})`, () => {
  if (SHIPPED_ABIS.includes(process.versions.modules)) {
    const uws = loadUws();
    expect(typeof uws.App).toBe('function');
    expect(typeof uws.us_socket_local_port).toBe('function');
  } else {
    expect(() => loadUws()).toThrow(
      new RegExp(`no native binary that loads on ${process.platform}-${process.arch} with Node ${process.version} \\(ABI ${process.versions.modules}`),
    );
  }
});

it('refuses a platform without a binary, naming platform and Node version', () => {
  const target = { platform: 'linux', arch: 'mips', abi: '115', nodeVersion: 'v20.20.2' };
  expect(() => loadUws(target)).toThrow(/no native binary that loads on linux-mips with Node v20\.20\.2 .*does not run on its JavaScript fallback/);
});
