// Only a well-formed host name from a PTR record reaches SNI, Host and the
// certificate check.
import { expect, it } from 'vitest';

import { ptrHostname } from '../../src/exposure/ptr-hostname.js';

it('keeps a host name, without its final dot', () => {
  expect(ptrHostname('host.example.test.')).toBe('host.example.test');
  expect(ptrHostname('static-1-2-3-4.isp_x.test')).toBe('static-1-2-3-4.isp_x.test');
});

it('refuses nothing, IP addresses and text that is not a host name', () => {
  for (const ptr of [
    null,
    '',
    '.',
    '192.0.2.7',
    '2001:db8::1',
    'a..b',
    '-a.test',
    'a-.test',
    'a b.test',
    'evil.test\r\nX-Injected: 1',
    `${'a'.repeat(64)}.test`,
  ]) {
    expect(ptrHostname(ptr)).toBeNull();
  }
});
