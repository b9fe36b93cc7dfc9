// Who the caller is, with and without trusted proxies: the walk from the
// right over every line of the configured forwarding header.
import { describe, expect, it } from 'vitest';

import { ClientAddressResolver, MAX_TRUSTED_HOPS } from '../../src/http/client-address.js';

const TRUSTED = ['10.0.0.0/8', '2001:db8:f::/48', '192.0.2.7'];

describe('ClientAddressResolver', () => {
  const behindProxy = new ClientAddressResolver(TRUSTED, 'x-forwarded-for');
  const behindForwarded = new ClientAddressResolver(TRUSTED, 'forwarded');

  it('ignores the header when no proxy is trusted', () => {
    const direct = new ClientAddressResolver([], 'x-forwarded-for');
    expect(direct.isTrustedProxy('198.51.100.1')).toBe(false);
    expect(direct.resolve('198.51.100.1', ['8.8.8.8'])).toBe('198.51.100.1');
  });

  it('ignores the header from a peer that is not a trusted proxy', () => {
    expect(behindProxy.isTrustedProxy('198.51.100.1')).toBe(false);
    expect(behindProxy.isTrustedProxy('10.1.1.1')).toBe(true);
    expect(behindProxy.resolve('198.51.100.1', ['8.8.8.8'])).toBe('198.51.100.1');
    expect(behindForwarded.resolve('198.51.100.1', ['for=8.8.8.8'])).toBe('198.51.100.1');
  });

  it('takes the rightmost entry that is not a trusted proxy', () => {
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8'])).toBe('8.8.8.8');
    expect(behindProxy.resolve('10.1.1.1', ['1.2.3.4, 8.8.8.8, 10.2.2.2'])).toBe('8.8.8.8');
    expect(behindProxy.resolve('192.0.2.7', ['2606:4700::1111, 2001:db8:f::9'])).toBe('2606:4700::1111');
    expect(behindProxy.resolve('10.1.1.1', ['[2606:4700::1111]:443'])).toBe('2606:4700::1111');
    expect(behindProxy.resolve('10.1.1.1', ['203.0.113.5:5555'])).toBe('203.0.113.5');
    expect(behindProxy.resolve('10.1.1.1', ['::ffff:8.8.4.4'])).toBe('8.8.4.4');
  });

  it('reads every line as one list: a proxy that adds its own line (HAProxy) still names the client', () => {
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8', '203.0.113.9'])).toBe('203.0.113.9');
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8, 1.1.1.1', '203.0.113.9, 10.2.2.2', '10.3.3.3'])).toBe('203.0.113.9');
    expect(behindForwarded.resolve('10.1.1.1', ['for=8.8.8.8', 'for="[2606:4700::1111]:443";proto=https'])).toBe('2606:4700::1111');
    expect(behindForwarded.resolve('10.1.1.1', ['for=8.8.8.8, for=203.0.113.9', 'for="[2001:db8:f::1]"', 'for=10.2.2.2'])).toBe('203.0.113.9');
  });

  it('keeps the last address it could trust when an entry is unusable or all are proxies', () => {
    expect(behindProxy.resolve('10.1.1.1', ['not-an-ip'])).toBe('10.1.1.1');
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8, garbage, 10.3.3.3'])).toBe('10.3.3.3');
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8', 'unknown'])).toBe('10.1.1.1');
    expect(behindProxy.resolve('10.1.1.1', ['10.4.4.4, 10.3.3.3'])).toBe('10.4.4.4');
    expect(behindProxy.resolve('10.1.1.1', [])).toBe('10.1.1.1');
    expect(behindProxy.resolve('10.1.1.1', [''])).toBe('10.1.1.1');
    expect(behindForwarded.resolve('10.1.1.1', ['for=8.8.8.8, for=_hidden'])).toBe('10.1.1.1');
    expect(behindForwarded.resolve('10.1.1.1', ['for=8.8.8.8, for=unknown, for=10.5.5.5'])).toBe('10.5.5.5');
    expect(behindForwarded.resolve('10.1.1.1', ['for=8.8.8.8, proto=https'])).toBe('10.1.1.1');
  });

  it('passes at most MAX_TRUSTED_HOPS trusted hops, however many a client sends', () => {
    const proxies = Array.from({ length: 10_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    const chain = (count: number) => proxies.slice(proxies.length - count);
    expect(behindProxy.resolve('10.1.1.1', [['8.8.8.8', ...chain(MAX_TRUSTED_HOPS)].join(', ')])).toBe('8.8.8.8');
    // The walk ends at the last trusted hop it passed, as at an unusable one.
    const lastPassed = proxies.at(-MAX_TRUSTED_HOPS);
    expect(behindProxy.resolve('10.1.1.1', [['8.8.8.8', ...chain(MAX_TRUSTED_HOPS + 1)].join(', ')])).toBe(lastPassed);
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8', ...proxies])).toBe(lastPassed);
    expect(behindForwarded.resolve('10.1.1.1', [proxies.map((ip) => `for=${ip}`).join(', ')])).toBe(lastPassed);
  });

  it('reads entries by the net/ address rules: no legacy IPv4 forms, no zone index', () => {
    // "10.1" would be 10.0.0.1, a trusted proxy, to a lax parser, and 8.8.8.8 the client.
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8, 10.1'])).toBe('10.1.1.1');
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8, 10.0.0.1'])).toBe('8.8.8.8');
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8, ::ffff:010.0.0.1'])).toBe('10.1.1.1');
    expect(behindProxy.resolve('10.1.1.1', ['8.8.8.8, [fe80::1%eth0]:443'])).toBe('10.1.1.1');
  });

  it('reads trustProxy by net/cidr parseCidr: legacy IPv4 forms and zone indexes refused', () => {
    for (const entry of ['10.1', '10.1/8', '127.1', 'fe80::1%eth0', '10.0.0.0/33']) {
      expect(() => new ClientAddressResolver(['192.0.2.7', entry], 'x-forwarded-for')).toThrow(JSON.stringify(entry));
    }
    // An IPv4-mapped network is the IPv4 network it maps, as callers' addresses are.
    expect(new ClientAddressResolver(['::ffff:10.0.0.0/104'], 'x-forwarded-for').resolve('10.1.1.1', ['8.8.8.8'])).toBe('8.8.8.8');
  });
});
