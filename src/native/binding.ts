// The only loader of the compiled addon (through load-addon.ts), and the
// types of what it exports.
import { fileURLToPath } from 'node:url';

import type { EngineChoice, EngineName } from './engine-choices.js';
import { loadAddon } from './load-addon.js';
import type { PollerChoice, PollerName } from './poller-choices.js';

/**
 * A target's pace and RTT estimate as a scan left them (LearnedTiming in
 * native/core/scan_spec.h): a scan's summary reports it, a later scan of
 * the same target may start from it.
 */
export interface NativeTiming {
  /** Connects per second in force for the target. 0 in a request: none learned. */
  rate: number;
  /** Smoothed RTT, microseconds (RFC 6298). */
  srttUs: number;
  /** RTT variation, microseconds. */
  rttvarUs: number;
  /** RTT samples behind srttUs and rttvarUs; 0: no RTT known (the other two are then ignored). */
  samples: number;
}

/** A scan request as the addon reads it (checked again in C++). */
export interface NativeScanRequest {
  address: Uint8Array;
  ports: Uint16Array;
  chunkSize?: number;
  budgetMs?: number;
  initialTimeoutMs?: number;
  minTimeoutMs?: number;
  maxTimeoutMs?: number;
  banners?: boolean;
  bannerTimeoutMs?: number;
  timing?: NativeTiming;
}

/**
 * What the addon uses for a request field left out: a default ScanSpec's
 * values (native/core/scan_spec.h, where they are declared once).
 */
export type NativeScanDefaults = Readonly<
  Required<Pick<NativeScanRequest, 'chunkSize' | 'initialTimeoutMs' | 'minTimeoutMs' | 'maxTimeoutMs' | 'banners' | 'bannerTimeoutMs'>>
>;

/** The numeric request fields the addon bounds, by its names (a nested one as `timing.rate`). */
export type NativeBoundedField =
  | 'chunkSize'
  | 'budgetMs'
  | 'initialTimeoutMs'
  | 'minTimeoutMs'
  | 'maxTimeoutMs'
  | 'bannerTimeoutMs'
  | 'timing.rate'
  | 'timing.srttUs'
  | 'timing.rttvarUs'
  | 'timing.samples';

/** A field's range, both ends allowed. */
export interface NativeBounds {
  readonly min: number;
  readonly max: number;
}

/** What the addon accepts of each numeric request field. */
export type NativeRequestBounds = Readonly<Record<NativeBoundedField, NativeBounds>>;

/** Each option's default is the addon's `engineDefaults` (native/core/engine.h). */
export interface NativeEngineOptions {
  /** Sockets at once across all scans; 0: from RLIMIT_NOFILE. */
  maxInFlight?: number;
  /** Connects outstanding to one address. */
  perTargetInFlight?: number;
  /** Connects per second to a new address before slow start (a request's `timing` overrides it). */
  initialRate?: number;
  /** Threads beside the engine's that run connect() calls; -1: one per core beyond the first. */
  connectThreads?: number;
  /** The readiness backend: `auto` (default) is the first of `pollers`. */
  poller?: PollerChoice;
  /**
   * The probe engine: `auto` (default) is `syn` when the process can open
   * raw sockets (CAP_NET_RAW), else `connect`; `syn` without the capability
   * throws an Error whose message begins `the syn engine needs CAP_NET_RAW`.
   */
  engine?: EngineChoice;
}

export interface NativeChunkEvent {
  kind: 'chunk';
  index: number;
  total: number;
  complete: boolean;
  closed: number;
  open: { port: number; banner: string | null }[];
  filtered: Uint16Array;
  /** Time the scan still needs as the target's path shows it; null until the target has answered. */
  etaMs: number | null;
}

export interface NativeEndEvent {
  kind: 'end';
  status: 'complete' | 'incomplete' | 'cancelled' | 'failed';
  durationMs: number;
  chunksComplete: number;
  totalChunks: number;
  timing: NativeTiming;
  errno?: number;
  syscall?: string;
}

export type NativeScanEvent = NativeChunkEvent | NativeEndEvent;

export interface NativeEngineStats {
  /** The readiness backend in use. */
  poller: PollerName;
  /** The probe engine in use. */
  engine: EngineName;
  /** Why `auto` fell back to the connect engine (the raw socket's error, e.g. `raw socket: Operation not permitted`); absent otherwise. */
  engineFallback?: string;
  fdLimit: number;
  budget: number;
  inFlight: number;
  scans: number;
  /** Probes put back after a local resource error (EMFILE, EADDRNOTAVAIL...). */
  localRetries: number;
  /** Canary probes sent: re-probes of ports known to answer, to see drops. */
  canaries: number;
  /** Canaries that went unanswered: the path lost them, or the host was dropping probes. */
  canariesLost: number;
  /** Of those, the ones judged the path's own random loss (the pace ignores them). */
  canariesLostToPath: number;
  /** Silences counted towards a port's `filtered` verdict (the canaries around them answered) of ports that answered later. */
  silencesContradicted: number;
  /** Packets the syn engine read that answered no probe of its own (late, duplicate or forged); 0 on the connect engine. */
  answersIgnored: number;
  /** SYNs the syn engine handed straight to the network device (an AF_PACKET socket, to the next hop's MAC address); 0 on the connect engine. */
  synsSentToDevice: number;
  /** SYNs the syn engine sent through the IP layer (a raw socket): to this host's own addresses, to targets whose next hop it has not resolved yet, and through devices other than Ethernet. */
  synsSentThroughIp: number;
}

export interface NativeBinding {
  configure(options?: NativeEngineOptions): NativeEngineStats;
  startScan(request: NativeScanRequest, onEvent: (event: NativeScanEvent) => void): number;
  cancelScan(id: number): void;
  stats(): NativeEngineStats | null;
  /** A new close-on-exec descriptor for the same open socket (dup, then FIOCLEX); throws with `errno` set. */
  duplicateDescriptor(fd: number): number;
  /** Frozen. */
  readonly scanDefaults: NativeScanDefaults;
  /** What the engine uses for an option left out. Frozen. */
  readonly engineDefaults: Readonly<Required<NativeEngineOptions>>;
  /** What the addon accepts of each numeric request field (declared once, in native/addon/scan_args.cc). Frozen. */
  readonly requestBounds: NativeRequestBounds;
  /** The readiness backends this build has, the platform's choice first. Frozen. */
  readonly pollers: readonly PollerName[];
}

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The addon of this process (one per Node environment). */
export const native = loadAddon(packageRoot) as NativeBinding;
