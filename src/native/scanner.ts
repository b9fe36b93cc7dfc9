// The scanner API: one engine per process shared by every scan, each scan
// streaming per-chunk results and settling a promise with the summary.
import { getSystemErrorName } from 'node:util';

import type { Port } from '../api/port.js';
import { serviceName } from '../api/service-names.js';
import { type NativeChunkEvent, type NativeEndEvent, type NativeEngineOptions, type NativeEngineStats, native } from './binding.js';
import { ENGINE_CHOICES, SYN_NEEDS_CAP_NET_RAW, SYN_NEEDS_CAP_NET_RAW_CODE } from './engine-choices.js';
import { POLLER_CHOICES, type PollerName } from './poller-choices.js';
import { type LearnedTiming, type ScanRequest, toNativeRequest } from './scan-request.js';

/** The results of one slice of the port list. Closed ports are counted. */
export interface ScanChunk {
  index: number;
  total: number;
  /** False only for the partial chunks a scan ending `incomplete` reports. */
  complete: boolean;
  open: Port[];
  filtered: Port[];
  closed: number;
  /**
   * Time the scan still needs, as its target's path shows it when the chunk
   * is done: the probes still owed at the pace in force (more for ports that
   * go silent, as many as the path's loss makes `filtered` need), plus the
   * timeouts of the rounds still to come. Null until the target has answered.
   */
  etaMs: number | null;
}

/** How a scan ended (a scan that could not run rejects instead). */
export type ScanEndStatus = 'complete' | 'incomplete' | 'cancelled';

/** Open and filtered ports found so far, growing as chunks arrive. */
export interface FoundPorts {
  open: Port[];
  filtered: Port[];
}

export interface ScanSummary {
  ip: string;
  status: ScanEndStatus;
  durationMs: number;
  open: Port[];
  filtered: Port[];
  closed: number;
  /** Ports with a known state: all of them unless `incomplete` or `cancelled`. */
  portsScanned: number;
  chunksComplete: number;
  totalChunks: number;
  /**
   * The target's pace and RTT estimate as the scan ended (shared with any
   * other scan of it that ran alongside): pass it as a later scan's
   * `timing` to start where this one stopped. `samples` is 0 when the
   * target never answered.
   */
  timing: LearnedTiming;
}

export interface ScanHandle {
  readonly id: number;
  /** The ports found so far: the same arrays `done` resolves with (sorted then); read them, never change them. */
  readonly found: FoundPorts;
  /** Settles when the scan ends; rejects with a system error if it failed. */
  readonly done: Promise<ScanSummary>;
  /** Stops the scan promptly; `done` then resolves with status `cancelled`. */
  cancel(): void;
}

export type ScannerOptions = NativeEngineOptions;
export type ScannerStats = NativeEngineStats;

export interface Scanner {
  /** Starts a scan; `onChunk` gets each chunk as it finishes. */
  scan(request: ScanRequest, onChunk?: (chunk: ScanChunk) => void): ScanHandle;
  stats(): ScannerStats;
}

/** A failed scan: the system call that made the scan impossible. */
export interface ScanError extends Error {
  code: string;
  errno: number;
  syscall: string;
}

function toChunk(event: NativeChunkEvent): ScanChunk {
  return {
    index: event.index,
    total: event.total,
    complete: event.complete,
    closed: event.closed,
    etaMs: event.etaMs,
    open: event.open.map(({ port, banner }) => ({ port, state: 'open', service: serviceName(port), banner })),
    filtered: Array.from(event.filtered, (port) => ({ port, state: 'filtered', service: serviceName(port), banner: null })),
  };
}

function toScanError(event: NativeEndEvent, ip: string): ScanError {
  const errno = event.errno ?? 0;
  const syscall = event.syscall ?? 'scan';
  const code = errno > 0 ? getSystemErrorName(-errno) : 'ESCAN';
  const error = new Error(`${syscall} ${code} ${ip}`) as ScanError;
  error.code = code;
  error.errno = errno;
  error.syscall = syscall;
  return error;
}

function byPort(a: Port, b: Port): number {
  return a.port - b.port;
}

function startScan(request: ScanRequest, onChunk?: (chunk: ScanChunk) => void): ScanHandle {
  const { ip, native: nativeRequest } = toNativeRequest(request, native.requestBounds);
  if (onChunk !== undefined && typeof onChunk !== 'function') {
    throw new TypeError('onChunk must be a function');
  }
  const found: FoundPorts = { open: [], filtered: [] };
  const { open, filtered } = found;
  let closed = 0;
  let callbackError: unknown;
  let settle!: { resolve: (summary: ScanSummary) => void; reject: (error: unknown) => void };
  const done = new Promise<ScanSummary>((resolve, reject) => {
    settle = { resolve, reject };
  });

  const id = native.startScan(nativeRequest, (event) => {
    if (event.kind === 'chunk') {
      const chunk = toChunk(event);
      open.push(...chunk.open);
      filtered.push(...chunk.filtered);
      closed += chunk.closed;
      if (onChunk === undefined || callbackError !== undefined) return;
      try {
        onChunk(chunk);
      } catch (error) {
        callbackError = error; // a throwing consumer ends its scan, not the process
        native.cancelScan(id);
      }
      return;
    }
    if (callbackError !== undefined) return settle.reject(callbackError);
    if (event.status === 'failed') return settle.reject(toScanError(event, ip));
    settle.resolve({
      ip,
      status: event.status,
      durationMs: Math.round(event.durationMs),
      open: open.sort(byPort),
      filtered: filtered.sort(byPort),
      closed,
      portsScanned: open.length + filtered.length + closed,
      chunksComplete: event.chunksComplete,
      totalChunks: event.totalChunks,
      timing: event.timing,
    });
  });
  return { id, found, done, cancel: () => native.cancelScan(id) };
}

let configured: string | undefined;

/** The readiness backends this build of the scanner has, the platform's choice first. */
export const availablePollers: readonly PollerName[] = native.pollers;

/** Throws a TypeError for a `poller` that is not a choice, or that this build lacks. */
function checkPoller(poller: unknown): void {
  if (poller === undefined) return;
  if (typeof poller !== 'string' || !(POLLER_CHOICES as readonly string[]).includes(poller)) {
    throw new TypeError(`poller must be one of ${POLLER_CHOICES.join(', ')}`);
  }
  if (poller !== 'auto' && !availablePollers.includes(poller as PollerName)) {
    throw new TypeError(`poller ${poller} is not available on ${process.platform}-${process.arch} (this build has ${availablePollers.join(', ')})`);
  }
}

/** Throws a TypeError for an `engine` that is not a choice. */
function checkEngine(engine: unknown): void {
  if (engine === undefined) return;
  if (typeof engine !== 'string' || !(ENGINE_CHOICES as readonly string[]).includes(engine)) {
    throw new TypeError(`engine must be one of ${ENGINE_CHOICES.join(', ')}`);
  }
}

/** The options as they tell one engine from another: `auto` is the same as leaving the option out. */
function optionsKey(options: ScannerOptions): string {
  return JSON.stringify(Object.fromEntries(Object.entries(options).filter(([name, value]) => !((name === 'poller' || name === 'engine') && value === 'auto'))));
}

/**
 * The process's scanner. The engine starts on the first call, with that
 * call's options; a later call with different options throws. `poller`
 * and `engine` `auto` are the same as leaving them out. `engine: 'syn'`
 * in a process without CAP_NET_RAW throws an Error with `code`
 * SYN_NEEDS_CAP_NET_RAW_CODE (and the engine does not start).
 */
export function createScanner(options: ScannerOptions = {}): Scanner {
  checkPoller(options.poller);
  checkEngine(options.engine);
  const key = optionsKey(options);
  if (configured === undefined) {
    try {
      native.configure(options);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith(SYN_NEEDS_CAP_NET_RAW)) Object.assign(error, { code: SYN_NEEDS_CAP_NET_RAW_CODE });
      throw error;
    }
    configured = key;
  } else if (key !== configured && key !== '{}') {
    throw new Error(`the scanner is already running with options ${configured}`);
  }
  return {
    scan: startScan,
    stats: () => native.stats() ?? native.configure(),
  };
}
