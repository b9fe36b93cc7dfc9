// Checks a scan request from TypeScript callers and turns it into the
// addon's shape. Throws TypeError for anything the scanner cannot take; the
// numeric fields' ranges are the addon's own (`native.requestBounds`), which
// the caller passes in, so this file loads no addon.
import { type IpAddress, tryParseIp } from '../net/ip-address.js';
import type { NativeBoundedField, NativeRequestBounds, NativeScanRequest, NativeTiming } from './binding.js';

/** Connect timeouts; the scanner adapts within them to the target's RTT. */
export interface TimeoutOptions {
  /** Used until the target has answered once. Default `native.scanDefaults.initialTimeoutMs` (binding.ts). */
  initialMs?: number;
  /** Default `native.scanDefaults.minTimeoutMs`. */
  minMs?: number;
  /** Default `native.scanDefaults.maxTimeoutMs`. */
  maxMs?: number;
}

/**
 * What a scan learned of its target's timing: its summary's `timing`. Given
 * to a later scan of the same target (say the next chunk job of a deep scan
 * split across processes), the target's pace starts at `rate` and grows
 * slowly from there instead of slow start from `initialRate`, and its
 * connect timeout follows the RTT estimate instead of `timeouts.initialMs`;
 * while another scan of that target runs in this process, what that scan
 * is learning wins.
 */
export type LearnedTiming = NativeTiming;

export interface ScanRequest {
  /** IPv4 or IPv6 address; an IPv4-mapped IPv6 address is scanned as IPv4. */
  ip: string;
  /** Distinct port numbers, 1 to 65535, probed in this order. */
  ports: readonly number[];
  /** Ports per chunk event. Default `native.scanDefaults.chunkSize` (binding.ts). */
  chunkSize?: number;
  /** Time budget; past it the scan ends `incomplete`. 0 or absent: none. */
  budgetMs?: number;
  timeouts?: TimeoutOptions;
  /** Read banners of open ports. Default `native.scanDefaults.banners`. */
  banners?: boolean;
  /**
   * Longest wait for a server-first banner, and again for the answer to the
   * HTTP probe; fast targets get shorter waits, from their RTT. Default
   * `native.scanDefaults.bannerTimeoutMs`.
   */
  bannerTimeoutMs?: number;
  /**
   * Where the target's pace and RTT estimate start: an earlier scan's
   * `summary.timing`. Absent: from scratch.
   */
  timing?: LearnedTiming;
}

/** The target of a request: an address by the net/ rules; IPv4-mapped IPv6 becomes IPv4. */
function parseTarget(ip: unknown): IpAddress {
  const target = typeof ip === 'string' ? tryParseIp(ip) : null;
  if (target === null) throw new TypeError(`ip must be an IPv4 or IPv6 address, got ${JSON.stringify(ip)}`);
  return target;
}

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** Must be an integer in the addon's bounds of `field` (named `name` to the caller). */
function requireInteger(bounds: NativeRequestBounds, name: string, value: unknown, field: NativeBoundedField): asserts value is number {
  const { min, max } = bounds[field];
  if (!isIntegerIn(value, min, max)) throw new TypeError(`${name} must be an integer from ${min} to ${max}`);
}

/** Absent is fine; present must be as requireInteger says. */
function checkInteger(bounds: NativeRequestBounds, name: string, value: unknown, field: NativeBoundedField): void {
  if (value !== undefined) requireInteger(bounds, name, value, field);
}

/** Must be a finite number in the addon's bounds of `field`. */
function checkNumber(bounds: NativeRequestBounds, field: NativeBoundedField, value: unknown): asserts value is number {
  const { min, max } = bounds[field];
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new TypeError(`${field} must be a number from ${min} to ${max}`);
  }
}

/** A learned timing: all four fields, copied (nothing else reaches the addon). */
function toTiming(timing: unknown, bounds: NativeRequestBounds): NativeTiming | undefined {
  if (timing === undefined) return undefined;
  if (typeof timing !== 'object' || timing === null || Array.isArray(timing)) throw new TypeError('timing must be an object');
  const { rate, srttUs, rttvarUs, samples } = timing as Record<string, unknown>;
  checkNumber(bounds, 'timing.rate', rate);
  checkNumber(bounds, 'timing.srttUs', srttUs);
  checkNumber(bounds, 'timing.rttvarUs', rttvarUs);
  requireInteger(bounds, 'timing.samples', samples, 'timing.samples');
  return { rate, srttUs, rttvarUs, samples };
}

/** Frozen port lists already checked (the scan types' own): the check costs more than the rest of starting a fast scan. */
const checkedLists = new WeakMap<readonly unknown[], Uint16Array>();

function toPortArray(ports: unknown): Uint16Array {
  if (!Array.isArray(ports)) throw new TypeError('ports must be an array of port numbers');
  const checked = checkedLists.get(ports);
  if (checked !== undefined) return checked; // the addon copies it; nobody writes to it
  const out = checkPorts(ports);
  if (Object.isFrozen(ports)) checkedLists.set(ports, out);
  return out;
}

function checkPorts(ports: readonly unknown[]): Uint16Array {
  const out = new Uint16Array(ports.length);
  const seen = new Uint8Array(65536); // a Set costs milliseconds for a deep scan's 65,535 ports
  for (let i = 0; i < ports.length; i++) {
    const port: unknown = ports[i]; // a plain loop: holes in the array are caught too
    if (!isIntegerIn(port, 1, 65535)) throw new TypeError(`ports[${i}] must be an integer from 1 to 65535`);
    if (seen[port] === 1) throw new TypeError(`ports must not repeat (${port})`);
    seen[port] = 1;
    out[i] = port;
  }
  return out;
}

/** Validates `request` (its numbers against `bounds`); returns the canonical target and the addon request. */
export function toNativeRequest(request: ScanRequest, bounds: NativeRequestBounds): { ip: string; native: NativeScanRequest } {
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('scan request must be an object');
  }
  const target = parseTarget(request.ip);
  const ports = toPortArray(request.ports);
  const timeouts = request.timeouts ?? {};
  checkInteger(bounds, 'chunkSize', request.chunkSize, 'chunkSize');
  checkInteger(bounds, 'budgetMs', request.budgetMs, 'budgetMs');
  checkInteger(bounds, 'timeouts.initialMs', timeouts.initialMs, 'initialTimeoutMs');
  checkInteger(bounds, 'timeouts.minMs', timeouts.minMs, 'minTimeoutMs');
  checkInteger(bounds, 'timeouts.maxMs', timeouts.maxMs, 'maxTimeoutMs');
  checkInteger(bounds, 'bannerTimeoutMs', request.bannerTimeoutMs, 'bannerTimeoutMs');
  if (request.banners !== undefined && typeof request.banners !== 'boolean') {
    throw new TypeError('banners must be a boolean');
  }
  const native: NativeScanRequest = {
    address: Uint8Array.from(target.toByteArray()),
    ports,
    chunkSize: request.chunkSize,
    budgetMs: request.budgetMs,
    initialTimeoutMs: timeouts.initialMs,
    minTimeoutMs: timeouts.minMs,
    maxTimeoutMs: timeouts.maxMs,
    banners: request.banners,
    bannerTimeoutMs: request.bannerTimeoutMs,
    timing: toTiming(request.timing, bounds),
  };
  return { ip: target.toString(), native };
}
