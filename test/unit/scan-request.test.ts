// Pure checks of scan requests before they reach the addon.
import { describe, expect, it } from 'vitest';

import { FAST_PORTS } from '../../src/api/scan-type.js';
import { toNativeRequest } from '../../src/native/scan-request.js';
import { serviceName } from '../../src/native/service-names.js';

describe('toNativeRequest', () => {
  it('checks a frozen port list once and reuses the result; other lists every time', () => {
    const first = toNativeRequest({ ip: '192.0.2.7', ports: FAST_PORTS }).native.ports;
    expect(Array.from(first)).toEqual(FAST_PORTS);
    expect(toNativeRequest({ ip: '192.0.2.8', ports: FAST_PORTS }).native.ports).toBe(first);
    const plain = [22, 80];
    expect(toNativeRequest({ ip: '192.0.2.7', ports: plain }).native.ports).not.toBe(toNativeRequest({ ip: '192.0.2.7', ports: plain }).native.ports);
    const frozenBad = Object.freeze([22, 22]);
    for (let i = 0; i < 2; i++) expect(() => toNativeRequest({ ip: '192.0.2.7', ports: frozenBad })).toThrow(/must not repeat/);
  });

  it('turns addresses into 4 or 16 bytes and IPv4-mapped IPv6 into IPv4', () => {
    expect(toNativeRequest({ ip: '192.0.2.7', ports: [1] }).native.address).toEqual(Uint8Array.of(192, 0, 2, 7));
    const mapped = toNativeRequest({ ip: '::ffff:192.0.2.7', ports: [1] });
    expect(mapped.ip).toBe('192.0.2.7');
    expect(mapped.native.address).toHaveLength(4);
    const v6 = toNativeRequest({ ip: '2001:db8::1', ports: [1] });
    expect(v6.ip).toBe('2001:db8::1');
    expect(Array.from(v6.native.address)).toEqual([0x20, 0x01, 0x0d, 0xb8, ...Array(11).fill(0), 1]);
  });

  it('keeps the port order and passes options through', () => {
    const { native } = toNativeRequest({ ip: '192.0.2.7', ports: [443, 22, 65535], chunkSize: 2, budgetMs: 5000, timeouts: { minMs: 50 }, banners: false });
    expect(Array.from(native.ports)).toEqual([443, 22, 65535]);
    expect(native).toMatchObject({ chunkSize: 2, budgetMs: 5000, minTimeoutMs: 50, banners: false });
  });

  // Which texts are addresses is net/ip-address's rule (ip-address.test.ts); here, that a refusal is a TypeError.
  it.each(['127.1', 'fe80::1%lo', 'localhost', '', 7, undefined])('refuses the ip %j with TypeError', (ip) => {
    const start = (): unknown => toNativeRequest({ ip, ports: [1] } as never);
    expect(start).toThrow(TypeError);
    expect(start).toThrow(`ip must be an IPv4 or IPv6 address, got ${JSON.stringify(ip)}`);
  });

  it.each([
    ['port 0', { ip: '192.0.2.7', ports: [0] }],
    ['a sparse port list', { ip: '192.0.2.7', ports: [1, , 3] }],
    ['a repeated port', { ip: '192.0.2.7', ports: [5, 5] }],
    ['a fractional budget', { ip: '192.0.2.7', ports: [1], budgetMs: 1.5 }],
    ['an oversized chunk', { ip: '192.0.2.7', ports: [1], chunkSize: 70000 }],
  ])('refuses %s with TypeError', (_, request) => {
    expect(() => toNativeRequest(request as never)).toThrow(TypeError);
  });
});

describe('serviceName', () => {
  it('names ports by the IANA registry', () => {
    expect(serviceName(22)).toBe('ssh');
    expect(serviceName(25)).toBe('smtp');
    expect(serviceName(443)).toBe('https');
    expect(serviceName(11211)).toBe('memcache');
    expect(serviceName(40022)).toBeNull();
  });
});
