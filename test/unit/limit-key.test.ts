// Whom the per-IP limits count: an IPv4 address as itself, an IPv6 address
// as its network of the configured prefix length.
import { describe, expect, it } from 'vitest';

import { perIpLimitKeys } from '../../src/limits/rate/limit-key.js';

const perIpLimitKey = (ip: string, prefix: number): string => perIpLimitKeys(prefix)(ip);

describe('perIpLimitKey', () => {
  it('keeps an IPv4 address as it is, whatever the IPv6 prefix length', () => {
    for (const prefix of [1, 48, 64, 128]) expect(perIpLimitKey('198.51.100.7', prefix)).toBe('198.51.100.7');
  });

  it('counts two addresses of one /64 as one caller, and another /64 apart', () => {
    const a = perIpLimitKey('2001:db8:5:6::1', 64);
    expect(a).toBe('2001:db8:5:6::/64');
    expect(perIpLimitKey('2001:db8:5:6:ffff:ffff:ffff:fffe', 64)).toBe(a);
    expect(perIpLimitKey('2001:db8:5:7::1', 64)).not.toBe(a);
  });

  it('answers the same from its cache', () => {
    const keyOf = perIpLimitKeys(64);
    for (let i = 0; i < 3; i++) expect(keyOf('2001:db8:5:6::1')).toBe('2001:db8:5:6::/64');
    expect(() => keyOf('2001:db8::g')).toThrow();
  });

  it('follows the prefix length, down to the bit', () => {
    expect(perIpLimitKey('2001:db8:5:6::1', 128)).toBe('2001:db8:5:6::1/128');
    expect(perIpLimitKey('2001:db8:5:6::2', 128)).not.toBe(perIpLimitKey('2001:db8:5:6::1', 128));
    expect(perIpLimitKey('2001:db8:5:6::1', 48)).toBe('2001:db8:5::/48');
    expect(perIpLimitKey('2001:db8:5:ff::1', 56)).toBe('2001:db8:5::/56');
    expect(perIpLimitKey('2001:db8:5:1ff::1', 56)).toBe('2001:db8:5:100::/56');
    expect(perIpLimitKey('2001:db8::1', 1)).toBe('::/1');
  });
});
