// Networks by net/cidr: what parseCidr takes (trusted proxies, opt-outs, and
// the config schema through it), containment, and the network of an address.
import { describe, expect, it } from 'vitest';

import { cidrOf, contains, formatCidr, parseCidr } from '../../src/net/cidr.js';
import { parseIp } from '../../src/net/ip-address.js';

describe('parseCidr', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['10.1.2.3/8', '10.0.0.0/8'], // host bits cleared
    ['192.0.2.7', '192.0.2.7/32'], // a bare address
    ['192.0.2.7/32', '192.0.2.7/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['10.0.0.0/08', '10.0.0.0/8'], // up to three prefix digits
    ['2001:DB8::1', '2001:db8::1/128'],
    ['2001:db8::1/128', '2001:db8::1/128'],
    ['2001:db8:ffff::/33', '2001:db8:8000::/33'],
    ['::/0', '::/0'],
    ['fd00::/8', 'fd00::/8'],
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'], // IPv4-mapped, /96 or longer: the IPv4 network
    ['::ffff:10.0.0.0/96', '0.0.0.0/0'],
    ['::ffff:192.0.2.7', '192.0.2.7/32'],
    ['::ffff:0:0/95', '::fffe:0:0/95'], // shorter than /96: stays IPv6
  ])('reads %s as %s', (text, cidr) => {
    expect(formatCidr(parseCidr(text))).toBe(cidr);
  });

  it.each([
    '10.1', // legacy IPv4 forms: "10.1" would be 10.0.0.1 to ipaddr.js
    '10.1/8',
    '127.1/32',
    '0x0a.0.0.0/8',
    '010.0.0.0/8',
    'fe80::%eth0/64',
    'fe80::1%eth0',
    '::ffff:10.1/104',
    '10.0.0.0/',
    '10.0.0.0/-1',
    '10.0.0.0/+8',
    '10.0.0.0/0x8',
    '10.0.0.0/1000',
    '10.0.0.0/8/8',
    '10.0.0.0/ 8',
    ' 10.0.0.0/8',
    '10.0.0.0 - 10.255.255.255',
    'localhost/8',
    '',
  ])('refuses %j as not an address or CIDR', (text) => {
    expect(() => parseCidr(text)).toThrow(new Error(`${JSON.stringify(text)} is not an IP address or CIDR`));
  });

  it.each([
    ['10.0.0.0/33', 33, 32],
    ['192.0.2.7/999', 999, 32],
    ['2001:db8::/129', 129, 128],
    ['::ffff:10.0.0.0/129', 129, 128],
  ])('refuses the prefix of %s', (text, prefix, bits) => {
    expect(() => parseCidr(text)).toThrow(new Error(`${JSON.stringify(text)}: prefix /${prefix} is longer than ${bits} bits`));
  });
});

describe('contains', () => {
  const ip = parseIp;

  it('holds a network from its first to its last address and nothing outside', () => {
    const net = parseCidr('10.0.0.0/8');
    expect(['10.0.0.0', '10.255.255.255', '::ffff:10.1.2.3'].map((a) => contains(net, ip(a)))).toEqual([true, true, true]);
    expect(['9.255.255.255', '11.0.0.0'].some((a) => contains(net, ip(a)))).toBe(false);
    const v6 = parseCidr('2001:db8:8000::/33');
    expect(contains(v6, ip('2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'))).toBe(true);
    expect(contains(v6, ip('2001:db8:7fff:ffff:ffff:ffff:ffff:ffff'))).toBe(false);
  });

  it('holds only itself for a bare address, everything of its family for /0', () => {
    expect(contains(parseCidr('192.0.2.7'), ip('192.0.2.7'))).toBe(true);
    expect(contains(parseCidr('192.0.2.7'), ip('192.0.2.8'))).toBe(false);
    expect(contains(parseCidr('0.0.0.0/0'), ip('203.0.113.1'))).toBe(true);
    expect(contains(parseCidr('::/0'), ip('2001:db8::1'))).toBe(true);
  });

  it('never matches across families, IPv4-mapped addresses counting as IPv4', () => {
    expect(contains(parseCidr('::/0'), ip('203.0.113.1'))).toBe(false);
    expect(contains(parseCidr('::/0'), ip('::ffff:203.0.113.1'))).toBe(false);
    expect(contains(parseCidr('0.0.0.0/0'), ip('2001:db8::1'))).toBe(false);
    expect(contains(parseCidr('::ffff:203.0.113.0/120'), ip('203.0.113.9'))).toBe(true);
  });
});

describe('cidrOf', () => {
  it.each([
    ['198.51.100.77', 24, '198.51.100.0/24'],
    ['198.51.100.77', 21, '198.51.96.0/21'],
    ['198.51.100.77', 32, '198.51.100.77/32'],
    ['198.51.100.77', 0, '0.0.0.0/0'],
    ['2001:db8:1:2:3::4', 48, '2001:db8:1::/48'],
    ['2001:db8:ffff::1', 33, '2001:db8:8000::/33'],
    ['2001:db8::1', 128, '2001:db8::1/128'],
    ['2001:db8::1', 0, '::/0'],
  ])('puts %s in its /%i: %s', (address, prefix, cidr) => {
    expect(formatCidr(cidrOf(parseIp(address), prefix))).toBe(cidr);
  });
});
