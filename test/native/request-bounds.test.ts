// The numeric request fields' ranges are declared once, in the addon
// (native/addon/scan_args.cc), and exported as `native.requestBounds`: the
// addon takes each field at both ends of its range and refuses one step
// past it, and the library's own check (src/native/scan-request.ts) agrees
// on both, in the library's names. Real addon, 127.0.0.1, no ports.
import { expect, it } from 'vitest';

import { type NativeBoundedField, type NativeScanRequest, native } from '../../src/native/binding.js';
import type { ScanRequest } from '../../src/native/scan-request.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const scanner = createTestScanner();
const TIMING = { rate: 1000, srttUs: 500, rttvarUs: 100, samples: 3 };

/** `field` set to `value` in the addon's request, and the other fields it must agree with. */
function addonRequest(field: NativeBoundedField, value: number): NativeScanRequest {
  const request: NativeScanRequest = { address: Uint8Array.of(127, 0, 0, 1), ports: new Uint16Array(0) };
  if (field.startsWith('timing.')) return { ...request, timing: { ...TIMING, [field.slice('timing.'.length)]: value } };
  // The addon refuses a minimum timeout above the maximum.
  if (field === 'minTimeoutMs') return { ...request, minTimeoutMs: value, maxTimeoutMs: 60_000 };
  if (field === 'maxTimeoutMs') return { ...request, maxTimeoutMs: value, minTimeoutMs: 1 };
  return { ...request, [field]: value };
}

/** The same in the library's request, and the name its errors use. */
function libraryRequest(field: NativeBoundedField, value: number): { request: ScanRequest; name: string } {
  const request: ScanRequest = { ip: '127.0.0.1', ports: [] };
  if (field.startsWith('timing.')) return { request: { ...request, timing: { ...TIMING, [field.slice('timing.'.length)]: value } }, name: field };
  const timeout = { initialTimeoutMs: 'initialMs', minTimeoutMs: 'minMs', maxTimeoutMs: 'maxMs' }[field as string];
  if (timeout === undefined) return { request: { ...request, [field]: value }, name: field };
  const others = field === 'minTimeoutMs' ? { maxMs: 60_000 } : field === 'maxTimeoutMs' ? { minMs: 1 } : {};
  return { request: { ...request, timeouts: { ...others, [timeout]: value } }, name: `timeouts.${timeout}` };
}

function addonEnds(request: NativeScanRequest): Promise<string> {
  return new Promise((resolve) => {
    native.startScan(request, (event) => {
      if (event.kind === 'end') resolve(event.status);
    });
  });
}

const fields = Object.keys(native.requestBounds) as NativeBoundedField[];

it('bounds every numeric field of a request, timing included', () => {
  expect(fields.sort()).toEqual(
    [
      'chunkSize',
      'budgetMs',
      'initialTimeoutMs',
      'minTimeoutMs',
      'maxTimeoutMs',
      'bannerTimeoutMs',
      'timing.rate',
      'timing.srttUs',
      'timing.rttvarUs',
      'timing.samples',
    ].sort(),
  );
  expect(Object.isFrozen(native.requestBounds)).toBe(true);
});

it.each(fields)('%s: the addon and the library take both ends and refuse one past the top', async (field) => {
  const { min, max } = native.requestBounds[field];
  const whole = field !== 'timing.rate' && field !== 'timing.srttUs' && field !== 'timing.rttvarUs';
  const rule = `must be ${whole ? 'an integer' : 'a number'} from ${min} to ${max}`;
  for (const value of [min, max]) {
    expect(await addonEnds(addonRequest(field, value))).toBe('complete');
    expect((await scanner.scan(libraryRequest(field, value).request).done).status).toBe('complete');
  }
  const past = max + 1;
  expect(() => native.startScan(addonRequest(field, past), () => {})).toThrow(new TypeError(`${field} ${rule}`));
  const { request, name } = libraryRequest(field, past);
  expect(() => scanner.scan(request)).toThrow(new TypeError(`${name} ${rule}`));
});
