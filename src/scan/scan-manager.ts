// The scan manager: accepts scans, coalesces duplicates onto the scan in
// flight, queues them per type, runs them on the scanner, persists every
// state and tells watchers what happens. One instance per process.
import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import { ApiError } from '../api/api-error.js';
import type { FailReason } from '../api/fail-reason.js';
import type { ScanQueued as ScanQueuedBody } from '../api/scan-queued.js';
import type {
  ScanResultFailed as FailedBody,
  ScanResultFinished as FinishedBody,
  ScanResult as ScanResultBody,
} from '../api/scan-result.js';
import { SCAN_PROFILES, SCAN_TYPES, type ScanType } from '../api/scan-type.js';
import type { ScanChunk, Scanner, ScanSummary } from '../native/scanner.js';
import type { ResultStore } from '../store/result-store.js';
import { type Clock, systemClock } from './clock.js';
import { EtaEstimator } from './eta-estimator.js';
import type { PtrLookup } from './ptr-lookup.js';
import { finalBody, type InFlightFacts, inFlightBody, noneBody, progressBody, scanQueuedBody } from './result-view.js';
import { isFinal, type ScanOrigin, type ScanRecord } from './scan-record.js';
import type { ScanListener, StreamEvent, StreamEventName } from './stream-event.js';

export const RESULT_TTL_MS = 24 * 60 * 60 * 1000;

export interface ScanManagerOptions {
  scanner: Pick<Scanner, 'scan'>;
  store: ResultStore;
  logger: Logger;
  /** Scans of each type running at once; the rest wait in line. */
  concurrency: Record<ScanType, number>;
  /** Time budget per scan type; past it a scan ends `incomplete`. */
  budgetMs: Record<ScanType, number>;
  clock?: Clock;
  /** Reverse DNS for ptr_record; none configured: always null. */
  lookupPtr?: PtrLookup;
  /** How often expired results are deleted from the store. Default 10 min. */
  sweepIntervalMs?: number;
}

/** The service is shutting down and takes no new scans. */
export class ShuttingDownError extends ApiError {
  constructor() {
    super('unavailable', 'the service is shutting down; try again shortly');
  }
}

export interface StartResult {
  /** The scan started or joined. */
  scanId: string;
  /** The POST response body. */
  body: ScanQueuedBody;
  /** True when the request joined a scan already in flight. */
  coalesced: boolean;
  /** The events a new watcher needs first: scan:queued, then scan:progress if it runs. */
  initial: StreamEvent[];
  /** Stops the listener given to start(); a no-op without one. */
  unsubscribe: () => void;
}

class LiveScan {
  readonly listeners = new Set<ScanListener>();
  nextEventId = 1;
  cancel: (() => void) | null = null;
  ptr: Promise<string | null> = Promise.resolve(null);
  /** Writes of this record, chained so they land in order. */
  persisted: Promise<void> = Promise.resolve();
  /** Its place in line: increasing with each scan queued. */
  ticket = 0;
  /** Settles when the scan is admitted and recorded; rejects if refused. */
  accepted: Promise<void> = Promise.resolve();

  constructor(readonly record: ScanRecord) {}
}

const UNREACHABLE_CODES = new Set(['ENETUNREACH', 'EHOSTUNREACH']);

/** Scans started in one turn of the event loop; more wait for the next. */
const STARTS_PER_TURN = 16;

/** Finished results kept in memory for GET, per scan type, and how large each may be. */
const FINAL_CACHE_ENTRIES = 2048;
const FINAL_CACHE_MAX_PORTS = 256;

interface FinalEntry {
  body: FinishedBody | FailedBody;
  expiresAt: number | null;
}

export class ScanManager {
  // Keyed by type, then ip: a GET finds its scan without building a key.
  private readonly live: Record<ScanType, Map<string, LiveScan>> = { fast: new Map(), deep: new Map() };
  private readonly finals: Record<ScanType, Map<string, FinalEntry>> = { fast: new Map(), deep: new Map() };
  private readonly queues: Record<ScanType, LiveScan[]> = { fast: [], deep: [] };
  private readonly running: Record<ScanType, number> = { fast: 0, deep: 0 };
  private readonly pumpScheduled: Record<ScanType, boolean> = { fast: false, deep: false };
  private readonly eta = new EtaEstimator();
  private readonly clock: Clock;
  private readonly log: Logger;
  private idleWaiters: (() => void)[] = [];
  private nextTicket = 0;
  private readonly finishedListeners: ((record: ScanRecord) => void)[] = [];
  private accepting = true;
  private sweepTimer: NodeJS.Timeout | undefined;

  private constructor(private readonly options: ScanManagerOptions) {
    this.clock = options.clock ?? systemClock;
    this.log = options.logger;
  }

  /**
   * Opens the manager: scans a previous process left queued or running are
   * recorded as failed with fail_reason `interrupted` (returned, so that
   * what was owed for them can still be done).
   */
  static async open(options: ScanManagerOptions): Promise<{ manager: ScanManager; interrupted: ScanRecord[] }> {
    const manager = new ScanManager(options);
    const interrupted = await manager.recoverInterrupted();
    manager.sweepTimer = setInterval(() => void manager.sweepExpired(), options.sweepIntervalMs ?? 600_000);
    manager.sweepTimer.unref();
    return { manager, interrupted };
  }

  /**
   * Starts a scan of `ip`, or joins the one in flight for (ip, scanType).
   * `admit` runs only when a new scan would start (joining one costs no
   * quota); if it throws, nothing starts and the error is thrown here, and
   * to any request that joined meanwhile. Resolves once a new scan is
   * durably recorded. `listener` receives the scan's events after `initial`.
   */
  async start(
    ip: string,
    scanType: ScanType,
    origin: ScanOrigin,
    listener?: ScanListener,
    admit?: () => Promise<void>,
  ): Promise<StartResult> {
    if (!this.accepting) throw new ShuttingDownError();
    const live = this.live[scanType];
    const existing = live.get(ip);
    if (existing !== undefined) {
      await existing.accepted;
      this.log.info({ event: 'scan_joined', ip, scanType, origin, scanId: existing.record.id }, 'request joined a scan in flight');
      const body = scanQueuedBody(existing.record, true, this.facts(existing).etaSeconds);
      return { scanId: existing.record.id, body, coalesced: true, ...this.watchLive(existing, listener) };
    }

    const scan = new LiveScan(this.newRecord(ip, scanType, origin));
    live.set(ip, scan); // before any await: concurrent requests join it
    scan.accepted = (async () => {
      await admit?.();
      await this.persist(scan);
    })();
    try {
      await scan.accepted;
    } catch (error) {
      live.delete(ip);
      this.notifyIfIdle();
      throw error;
    }
    this.log.info({ event: 'scan_queued', ip, scanType, origin, scanId: scan.record.id }, 'scan queued');
    scan.ticket = this.nextTicket++;
    this.queues[scanType].push(scan);
    const body = scanQueuedBody(scan.record, false, this.facts(scan).etaSeconds); // in line, so its place counts
    this.schedulePump(scanType);
    return { scanId: scan.record.id, body, coalesced: false, ...this.watchLive(scan, listener) };
  }

  /** Attaches to the scan in flight for (ip, scanType); null when there is none. */
  watch(ip: string, scanType: ScanType, listener: ScanListener): Pick<StartResult, 'initial' | 'unsubscribe'> | null {
    const scan = this.live[scanType].get(ip);
    return scan === undefined ? null : this.watchLive(scan, listener);
  }

  /**
   * The GET body for (ip, scanType): in flight, finished, or `none`. A
   * finished body is the same object on every call until it changes.
   */
  async result(ip: string, scanType: ScanType): Promise<ScanResultBody> {
    const known = this.resultInMemory(ip, scanType);
    if (known !== undefined) return known;
    const record = await this.options.store.get(ip, scanType);
    if (record === null || !isFinal(record.status)) return noneBody(ip, scanType);
    return this.finalOrNone(this.remember(record), ip, scanType);
  }

  /** result() when it can be answered without the store; undefined when it cannot. */
  resultInMemory(ip: string, scanType: ScanType): ScanResultBody | undefined {
    const scan = this.live[scanType].get(ip);
    if (scan !== undefined) return inFlightBody(scan.record, this.facts(scan));
    const final = this.finals[scanType].get(ip);
    return final === undefined ? undefined : this.finalOrNone(final, ip, scanType);
  }

  private finalOrNone(final: FinalEntry, ip: string, scanType: ScanType): ScanResultBody {
    return final.expiresAt !== null && final.expiresAt <= this.clock.now() ? noneBody(ip, scanType) : final.body;
  }

  /** Keeps small finished bodies in memory, most recently used last. */
  private remember(record: ScanRecord): FinalEntry {
    const finals = this.finals[record.scanType];
    const entry = { body: finalBody(record), expiresAt: record.expiresAt };
    finals.delete(record.ip);
    if (record.portsOpen.length + record.portsFiltered.length <= FINAL_CACHE_MAX_PORTS) {
      finals.set(record.ip, entry);
      if (finals.size > FINAL_CACHE_ENTRIES) finals.delete(finals.keys().next().value!);
    }
    return entry;
  }

  /** Scans in flight (queued or running). */
  get inFlight(): number {
    return this.live.fast.size + this.live.deep.size;
  }

  /** Whether the scan with this id is still queued or running. */
  isLive(scanId: string): boolean {
    for (const type of SCAN_TYPES) for (const scan of this.live[type].values()) if (scan.record.id === scanId) return true;
    return false;
  }

  /** Calls `listener` with each scan's final record, once it is stored; listeners must not change it. */
  onFinished(listener: (record: ScanRecord) => void): void {
    this.finishedListeners.push(listener);
  }

  /**
   * Stops taking scans, lets those in flight finish for up to `graceMs`,
   * then ends the rest as failed (`interrupted`) so every watcher gets its
   * terminal event and every record is final.
   */
  async drain(graceMs: number): Promise<void> {
    this.accepting = false;
    clearInterval(this.sweepTimer);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    for (const type of SCAN_TYPES) {
      for (const scan of this.queues[type].splice(0)) void this.finish(scan, { failReason: 'interrupted' });
    }
    for (const type of SCAN_TYPES) for (const scan of this.live[type].values()) scan.cancel?.();
    await this.idle();
  }

  private idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private notifyIfIdle(): void {
    if (this.inFlight > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private newRecord(ip: string, scanType: ScanType, origin: ScanOrigin): ScanRecord {
    return {
      id: randomUUID(),
      ip,
      scanType,
      status: 'queued',
      origin,
      queuedAt: this.clock.now(),
      startedAt: null,
      completedAt: null,
      expiresAt: null,
      durationMs: null,
      chunksComplete: 0,
      totalChunks: SCAN_PROFILES[scanType].totalChunks,
      portsOpen: [],
      portsFiltered: [],
      ptrRecord: null,
      failReason: null,
    };
  }

  private facts(scan: LiveScan): InFlightFacts {
    const { scanType, status, startedAt } = scan.record;
    const concurrency = this.options.concurrency[scanType];
    if (status === 'queued') {
      // Scans leave a queue only from its front, so tickets give positions in O(1).
      const front = this.queues[scanType][0];
      const position = front === undefined ? 0 : Math.max(0, scan.ticket - front.ticket);
      const ahead = position + this.running[scanType];
      return { queuePosition: position, etaSeconds: this.eta.etaSeconds(scanType, ahead, concurrency) };
    }
    const elapsed = this.clock.now() - (startedAt ?? this.clock.now());
    return { queuePosition: 0, etaSeconds: this.eta.etaSeconds(scanType, 0, concurrency, elapsed) };
  }

  private watchLive(scan: LiveScan, listener?: ScanListener): Pick<StartResult, 'initial' | 'unsubscribe'> {
    if (listener === undefined) return { initial: [], unsubscribe: () => {} };
    const facts = this.facts(scan);
    const initial = [this.event(scan, 'scan:queued', inFlightBody(scan.record, facts))];
    if (scan.record.status === 'running') initial.push(this.event(scan, 'scan:progress', progressBody(scan.record, facts)));
    scan.listeners.add(listener);
    return { initial, unsubscribe: () => scan.listeners.delete(listener) };
  }

  private event(scan: LiveScan, name: StreamEventName, data: object): StreamEvent {
    return { name, id: scan.nextEventId++, data, terminal: name === 'scan:complete' || name === 'scan:failed' };
  }

  /** Sends an event to the scan's watchers; `data` is built only if there are any. */
  private emit(scan: LiveScan, name: StreamEventName, data: () => object): void {
    if (scan.listeners.size === 0) return;
    const event = this.event(scan, name, data());
    for (const listener of [...scan.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.log.error({ err: error, scanId: scan.record.id }, 'scan listener threw');
      }
    }
  }

  private persist(scan: LiveScan): Promise<void> {
    const snapshot = structuredClone(scan.record);
    scan.persisted = scan.persisted.catch(() => {}).then(() => this.options.store.put(snapshot));
    return scan.persisted;
  }

  /**
   * Starts waiting scans soon, a few per turn of the event loop: requests
   * that arrive meanwhile are answered first, instead of waiting behind the
   * start of hundreds of scans.
   */
  private schedulePump(scanType: ScanType): void {
    if (this.pumpScheduled[scanType]) return;
    this.pumpScheduled[scanType] = true;
    setImmediate(() => {
      this.pumpScheduled[scanType] = false;
      this.pump(scanType);
    });
  }

  private pump(scanType: ScanType): void {
    const queue = this.queues[scanType];
    for (let started = 0; queue.length > 0 && this.running[scanType] < this.options.concurrency[scanType]; started++) {
      if (started === STARTS_PER_TURN) return this.schedulePump(scanType);
      this.run(queue.shift()!);
    }
  }

  private run(scan: LiveScan): void {
    const { record } = scan;
    const profile = SCAN_PROFILES[record.scanType];
    this.running[record.scanType]++;
    record.status = 'running';
    record.startedAt = this.clock.now();
    void this.persist(scan).catch((error) => this.log.error({ err: error, scanId: record.id }, 'could not store scan state'));
    if (this.options.lookupPtr !== undefined) scan.ptr = this.options.lookupPtr(record.ip);
    this.emit(scan, 'scan:progress', () => progressBody(record, this.facts(scan)));
    try {
      const handle = this.options.scanner.scan(
        { ip: record.ip, ports: profile.ports, chunkSize: profile.chunkSize, budgetMs: this.options.budgetMs[record.scanType] },
        (chunk) => this.onChunk(scan, chunk),
      );
      scan.cancel = handle.cancel;
      handle.done.then(
        (summary) => this.finish(scan, { summary }),
        (error: unknown) => this.finish(scan, { error }),
      );
    } catch (error) {
      void this.finish(scan, { error });
    }
  }

  private onChunk(scan: LiveScan, chunk: ScanChunk): void {
    const { record } = scan;
    record.portsOpen.push(...chunk.open);
    record.portsFiltered.push(...chunk.filtered);
    if (chunk.complete) record.chunksComplete++;
    this.emit(scan, 'scan:progress', () => progressBody(record, this.facts(scan)));
  }

  private async finish(
    scan: LiveScan,
    outcome: { summary: ScanSummary } | { error: unknown } | { failReason: FailReason },
  ): Promise<void> {
    const { record } = scan;
    const wasRunning = record.status === 'running';
    // Everything below the await is decided at once, so a GET never sees a
    // half-finished record.
    const ptrRecord = await scan.ptr;
    if ('summary' in outcome && outcome.summary.status !== 'cancelled') {
      record.status = outcome.summary.status;
      record.durationMs = outcome.summary.durationMs;
    } else {
      record.status = 'failed';
      record.failReason = 'failReason' in outcome ? outcome.failReason : 'error' in outcome ? this.failReasonOf(outcome.error) : 'interrupted';
    }
    record.portsOpen.sort((a, b) => a.port - b.port);
    record.portsFiltered.sort((a, b) => a.port - b.port);
    record.ptrRecord = ptrRecord;
    record.completedAt = this.clock.now();
    record.expiresAt = record.completedAt + RESULT_TTL_MS;
    record.durationMs ??= record.completedAt - (record.startedAt ?? record.queuedAt);
    try {
      await this.persist(scan);
    } catch (error) {
      this.log.error({ err: error, scanId: record.id }, 'could not store scan result');
    }
    this.live[record.scanType].delete(record.ip);
    for (const listener of this.finishedListeners) listener(record); // final: nothing changes it any more
    if (wasRunning) this.running[record.scanType]--;
    if (record.status === 'complete') this.eta.observe(record.scanType, record.durationMs);
    this.log.info(
      {
        event: 'scan_finished',
        scanId: record.id,
        ip: record.ip,
        scanType: record.scanType,
        origin: record.origin,
        status: record.status,
        failReason: record.failReason,
        durationMs: record.durationMs,
        open: record.portsOpen.length,
        filtered: record.portsFiltered.length,
      },
      'scan finished',
    );
    const { body } = this.remember(record);
    this.emit(scan, record.status === 'failed' ? 'scan:failed' : 'scan:complete', () => body);
    scan.listeners.clear();
    this.schedulePump(record.scanType);
    this.notifyIfIdle();
  }

  private failReasonOf(error: unknown): FailReason {
    const code = (error as { code?: unknown } | null)?.code;
    this.log.warn({ err: error }, 'scan could not run');
    return typeof code === 'string' && UNREACHABLE_CODES.has(code) ? 'unreachable' : 'scanner_error';
  }

  private async recoverInterrupted(): Promise<ScanRecord[]> {
    const records = await this.options.store.unfinished();
    for (const record of records) {
      record.status = 'failed';
      record.failReason = 'interrupted';
      record.completedAt = this.clock.now();
      record.expiresAt = record.completedAt + RESULT_TTL_MS;
      await this.options.store.put(record);
      this.log.warn({ event: 'scan_interrupted', scanId: record.id, ip: record.ip, scanType: record.scanType }, 'scan was interrupted by a restart');
    }
    return records;
  }

  private async sweepExpired(): Promise<void> {
    try {
      const removed = await this.options.store.deleteExpired(this.clock.now());
      if (removed > 0) this.log.info({ event: 'results_expired', removed }, 'expired results deleted');
    } catch (error) {
      this.log.error({ err: error }, 'expiry sweep failed');
    }
  }
}
