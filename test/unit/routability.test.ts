// Which addresses are publicly routable (net/routability), over a table of
// both families, and the target policy that refuses the others.
import { describe, expect, it } from 'vitest';

import { refuseTarget } from '../../src/limits/target-policy.js';
import { parseIp } from '../../src/net/ip-address.js';
import { unroutableReason } from '../../src/net/routability.js';

describe('unroutableReason', () => {
  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '193.0.14.129',
    '2001:4860:4860::8888',
    '2a00:1450:4001:80b::200e',
    '2002:808:808::1', // 6to4 of 8.8.8.8
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7', // Teredo, client 8.8.8.8
    '64:ff9b::808:808', // NAT64 of 8.8.8.8
    '64:ff9b::8.8.8.8', // the same, written with a dotted quad
    '::ffff:8.8.8.8', // IPv4-mapped: judged as 8.8.8.8
  ])('finds nothing against %s', (ip) => {
    expect(unroutableReason(parseIp(ip))).toBeNull();
  });

  it.each([
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.3.4.5', 'loopback'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'reserved'], // TEST-NET-1
    ['198.51.100.7', 'reserved'], // TEST-NET-2
    ['203.0.113.9', 'reserved'], // TEST-NET-3
    ['198.18.0.1', 'reserved'], // benchmarking
    ['240.0.0.1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'], // IPv4-mapped: judged as 10.0.0.1
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['fc12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'], // documentation
    ['100::1', 'discard'],
    ['2002:a00:1::1', '6to4 carrying 10.0.0.1 (private)'],
    ['2002:7f00:1::1', '6to4 carrying 127.0.0.1 (loopback)'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'teredo carrying 10.0.0.1 (private)'],
    ['64:ff9b::a00:1', 'rfc6052 carrying 10.0.0.1 (private)'],
    ['64:ff9b::10.0.0.1', 'rfc6052 carrying 10.0.0.1 (private)'],
    ['64:ff9b:1::808:808', 'rfc6052 (local-use NAT64)'],
    ['::808:808', 'outside global unicast 2000::/3'],
    ['::8.8.8.8', 'outside global unicast 2000::/3'], // IPv4-compatible (deprecated), not mapped
    ['4000::1', 'outside global unicast 2000::/3'],
  ])('refuses %s as %s', (ip, why) => {
    expect(unroutableReason(parseIp(ip))).toBe(why);
  });
});

describe('refuseTarget', () => {
  const strict = { allowPrivateTargets: false };

  it('names the address and the reason, and passes routable ones', () => {
    expect(refuseTarget('10.1.2.3', strict)).toBe('10.1.2.3 is not a publicly routable address (private)');
    expect(refuseTarget('2002:a00:1::1', strict)).toBe('2002:a00:1::1 is not a publicly routable address (6to4 carrying 10.0.0.1 (private))');
    expect(refuseTarget('8.8.8.8', strict)).toBeNull();
  });

  it('lets everything through when private targets are allowed', () => {
    expect(refuseTarget('127.0.0.1', { allowPrivateTargets: true })).toBeNull();
    expect(refuseTarget('fd00::1', { allowPrivateTargets: true })).toBeNull();
  });
});
