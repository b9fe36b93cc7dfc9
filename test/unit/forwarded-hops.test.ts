// Reading the hops of X-Forwarded-For and Forwarded: every line, in order;
// only the address forms the net/ rules and RFC 7239 allow; anything else a
// null hop, which the walk in client-address.ts never passes.
import { describe, expect, it } from 'vitest';

import { hopsFromRight, type ProxyHeader } from '../../src/http/forwarded-hops.js';

/** The hops, leftmost first. */
const read = (header: ProxyHeader, ...lines: string[]) => [...hopsFromRight(header, lines)].map((hop) => hop?.toString() ?? null).reverse();

describe('X-Forwarded-For hops', () => {
  it('are the entries of every line, in order, empty ones ignored', () => {
    expect(read('x-forwarded-for', '198.51.100.1, 203.0.113.2', '192.0.2.3')).toEqual(['198.51.100.1', '203.0.113.2', '192.0.2.3']);
    expect(read('x-forwarded-for', '', ' ,198.51.100.1,, \t', '')).toEqual(['198.51.100.1']);
    expect(read('x-forwarded-for')).toEqual([]);
  });

  it('read bare, v4:port, [v6] and [v6]:port addresses, IPv4-mapped as IPv4', () => {
    expect(read('x-forwarded-for', '2001:db8::1, [2001:db8::2], [2001:db8::3]:443, 192.0.2.4:80, ::ffff:192.0.2.5')).toEqual([
      '2001:db8::1',
      '2001:db8::2',
      '2001:db8::3',
      '192.0.2.4',
      '192.0.2.5',
    ]);
  });

  it('are null where the entry is not an address by the net/ rules', () => {
    for (const entry of ['unknown', '_hidden', '10.1', '010.0.0.1', '[fe80::1%eth0]:443', '192.0.2.1:port', '[192.0.2.1]', 'a b']) {
      expect(read('x-forwarded-for', `198.51.100.1, ${entry}`)).toEqual(['198.51.100.1', null]);
    }
  });
});

describe('Forwarded hops', () => {
  it('are the for= of each element of every line (RFC 7239 §4), other parameters ignored', () => {
    expect(read('forwarded', 'for=192.0.2.60;proto=http;by=203.0.113.43')).toEqual(['192.0.2.60']);
    expect(read('forwarded', 'for=192.0.2.43, for=198.51.100.17', 'for="192.0.2.9:8080", for="[2001:db8:cafe::17]:4711"')).toEqual([
      '192.0.2.43',
      '198.51.100.17',
      '192.0.2.9',
      '2001:db8:cafe::17',
    ]);
  });

  it('take quoted IPv6 with ports, case-insensitive names, blanks around ; and , and quoted pairs', () => {
    expect(read('forwarded', 'For="[2001:db8::1]:4711" ; Proto=https ,\tFOR="[2001:db8::2]"')).toEqual(['2001:db8::1', '2001:db8::2']);
    expect(read('forwarded', 'for="[::ffff:192.0.2.1]:_port"')).toEqual(['192.0.2.1']);
    expect(read('forwarded', 'for="192.0.2.\\7"')).toEqual(['192.0.2.7']);
  });

  it('ignore empty elements and lines', () => {
    expect(read('forwarded', '', ', for=192.0.2.1,, ;', '')).toEqual(['192.0.2.1']);
  });

  it('are null for unknown, obfuscated and non-RFC nodes', () => {
    for (const node of [
      'unknown',
      '_hidden',
      '"_SEVKISEK"',
      '"unknown:4711"',
      '[2001:db8::1]',
      '"2001:db8::1"',
      '"[192.0.2.1]"',
      '"192.0.2.1:port"',
      '"10.1"',
    ]) {
      expect(read('forwarded', `for=198.51.100.1, for=${node}`)).toEqual(['198.51.100.1', null]);
    }
  });

  it('are null for an element without for= or with a parameter twice', () => {
    expect(read('forwarded', 'proto=https;by=192.0.2.1')).toEqual([null]);
    expect(read('forwarded', 'for=192.0.2.1;for=192.0.2.2')).toEqual([null]);
    expect(read('forwarded', 'for=192.0.2.1;proto=http;proto=https')).toEqual([null]);
  });

  it('end a line in a null hop where it breaks the grammar; the next line is read afresh', () => {
    for (const broken of ['for=192.0.2.2 x', 'for = 192.0.2.2', '=192.0.2.2', 'for=192.0.2.2:80', 'for="192.0.2.2', 'for="192.0.2.2\x01"', 'for=192.0.2.2"']) {
      expect(read('forwarded', `for=198.51.100.1, ${broken}, for=198.51.100.3`, 'for=198.51.100.4')).toEqual(['198.51.100.1', null, '198.51.100.4']);
    }
  });

  it('keep commas inside quotes, so an unclosed quote cannot swallow a proxy’s element into a chosen one', () => {
    expect(read('forwarded', 'for="_a,b", for=192.0.2.3')).toEqual([null, '192.0.2.3']);
    // The client wrote `for="`; the proxy appended `, for="[2001:db8::1]"` to the same line.
    expect(read('forwarded', 'for=", for="[2001:db8::1]"')).toEqual([null]);
  });
});
