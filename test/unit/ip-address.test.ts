// The address rules of net/ip-address: which texts are addresses, and their
// canonical form.
import { describe, expect, it } from 'vitest';

import { normaliseIp, parseIp, tryParseIp, tryParseIpAsWritten } from '../../src/net/ip-address.js';

describe('tryParseIp and normaliseIp', () => {
  it.each([
    ['192.0.2.7', '192.0.2.7'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['2001:DB8:0:0::1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['::', '::'],
    ['::1', '::1'],
    ['fe80::1', 'fe80::1'],
    ['::ffff:192.0.2.7', '192.0.2.7'], // IPv4-mapped becomes IPv4
    ['::ffff:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:FFFF:c000:0207', '192.0.2.7'],
    ['64:ff9b::192.0.2.7', '64:ff9b::c000:207'], // a dotted-quad tail is two groups
    ['1:2:3:4:5:6:192.0.2.7', '1:2:3:4:5:6:c000:207'],
    ['::192.0.2.7', '::c000:207'], // IPv4-compatible (RFC 4291, deprecated): not mapped
  ])('reads %s as %s', (text, canonical) => {
    expect(tryParseIp(text)?.toString()).toBe(canonical);
    expect(normaliseIp(text)).toBe(canonical);
  });

  it.each([
    ['a short IPv4 form', '10.1'],
    ['a three-part IPv4 form', '10.0.1'],
    ['an IPv4 address as one number', '167772161'],
    ['hex IPv4 parts', '0x0a.0.0.1'],
    ['a leading zero (octal to some parsers)', '010.0.0.1'],
    ['an IPv4 part over 255', '256.0.0.1'],
    ['five IPv4 parts', '1.2.3.4.5'],
    ['a zone index', 'fe80::1%eth0'],
    ['a numeric zone index', 'fe80::1%1'],
    ['a zone index after a dotted tail', '::ffff:192.0.2.7%eth0'],
    ['a short IPv4 tail', '::ffff:10.1'],
    ['a leading zero in the tail', '::ffff:010.0.0.1'],
    ['a hex tail', '::ffff:0x0a.0.0.1'],
    ['a tail with nine groups', '1:2:3:4:5:6:7:192.0.2.7'],
    ['two ::', '1::2::3'],
    ['nine groups', '1:2:3:4:5:6:7:8:9'],
    ['a five-digit group', '12345::'],
    ['brackets', '[::1]'],
    ['a prefix', '::1/128'],
    ['a port', '192.0.2.7:80'],
    ['surrounding blanks', ' 192.0.2.7 '],
    ['a host name', 'localhost'],
    ['nothing', ''],
  ])('refuses %s (%s)', (_, text) => {
    expect(tryParseIp(text)).toBeNull();
    expect(() => normaliseIp(text)).toThrow(`${JSON.stringify(text)} is not an IP address`);
  });

  it('returns address objects of the right family', () => {
    expect(parseIp('192.0.2.7').kind()).toBe('ipv4');
    expect(parseIp('::ffff:192.0.2.7').toByteArray()).toEqual([192, 0, 2, 7]);
    expect(parseIp('2001:db8::1').kind()).toBe('ipv6');
  });
});

describe('tryParseIpAsWritten', () => {
  it('keeps an IPv4-mapped address as IPv6, by the same rules otherwise', () => {
    const mapped = tryParseIpAsWritten('::ffff:192.0.2.7');
    expect(mapped?.kind()).toBe('ipv6');
    expect(mapped?.toString()).toBe('::ffff:c000:207');
    expect(tryParseIpAsWritten('192.0.2.7')?.toString()).toBe('192.0.2.7');
    expect(tryParseIpAsWritten('10.1')).toBeNull();
    expect(tryParseIpAsWritten('fe80::1%eth0')).toBeNull();
  });
});
