// Pure checks of scan requests before they reach the addon. The numeric
// ranges are the addon's (native.requestBounds, compared with what the addon
// enforces in test/native/request-bounds.test.ts); here they are made-up
// ones, to show every check reads the bounds it is given.
import { describe, expect, it } from 'vitest';

import { FAST_PORTS } from '../../src/api/scan-type.js';
import type { NativeRequestBounds } from '../../src/native/binding.js';
import { type ScanRequest, toNativeRequest as toNativeRequestWithin } from '../../src/native/scan-request.js';

const BOUNDS: NativeRequestBounds = {
  chunkSize: { min: 1, max: 300 },
  budgetMs: { min: 0, max: 9000 },
  initialTimeoutMs: { min: 2, max: 700 },
  minTimeoutMs: { min: 3, max: 800 },
  maxTimeoutMs: { min: 4, max: 900 },
  bannerTimeoutMs: { min: 5, max: 1000 },
  'timing.rate': { min: 0, max: 10 },
  'timing.srttUs': { min: 0, max: 20 },
  'timing.rttvarUs': { min: 0, max: 30 },
  'timing.samples': { min: 0, max: 40 },
};
const toNativeRequest = (request: ScanRequest) => toNativeRequestWithin(request, BOUNDS);

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

  const timing = { rate: 10, srttUs: 20, rttvarUs: 30, samples: 40 };
  it.each([
    ['chunkSize', { chunkSize: 301 }, 'chunkSize must be an integer from 1 to 300'],
    ['budgetMs', { budgetMs: 9001 }, 'budgetMs must be an integer from 0 to 9000'],
    ['timeouts.initialMs', { timeouts: { initialMs: 1 } }, 'timeouts.initialMs must be an integer from 2 to 700'],
    ['timeouts.minMs', { timeouts: { minMs: 801 } }, 'timeouts.minMs must be an integer from 3 to 800'],
    ['timeouts.maxMs', { timeouts: { maxMs: 3 } }, 'timeouts.maxMs must be an integer from 4 to 900'],
    ['bannerTimeoutMs', { bannerTimeoutMs: 1001 }, 'bannerTimeoutMs must be an integer from 5 to 1000'],
    ['timing.rate', { timing: { ...timing, rate: 10.5 } }, 'timing.rate must be a number from 0 to 10'],
    ['timing.srttUs', { timing: { ...timing, srttUs: 21 } }, 'timing.srttUs must be a number from 0 to 20'],
    ['timing.rttvarUs', { timing: { ...timing, rttvarUs: -1 } }, 'timing.rttvarUs must be a number from 0 to 30'],
    ['timing.samples', { timing: { ...timing, samples: 41 } }, 'timing.samples must be an integer from 0 to 40'],
  ])('bounds %s by the range it is given', (_, fields, message) => {
    expect(() => toNativeRequest({ ip: '192.0.2.7', ports: [1], ...fields } as never)).toThrow(new TypeError(message));
    expect(toNativeRequest({ ip: '192.0.2.7', ports: [1], timing }).native.timing).toEqual(timing); // the edges are in
  });

  it.each([
    ['port 0', { ip: '192.0.2.7', ports: [0] }],
    ['a sparse port list', { ip: '192.0.2.7', ports: [1, , 3] }],
    ['a repeated port', { ip: '192.0.2.7', ports: [5, 5] }],
    ['a fractional budget', { ip: '192.0.2.7', ports: [1], budgetMs: 1.5 }],
    ['an oversized chunk', { ip: '192.0.2.7', ports: [1], chunkSize: 70000 }],
    ['timing without samples', { ip: '192.0.2.7', ports: [1], timing: { rate: 1, srttUs: 1, rttvarUs: 1 } }],
  ])('refuses %s with TypeError', (_, request) => {
    expect(() => toNativeRequest(request as never)).toThrow(TypeError);
  });
});
