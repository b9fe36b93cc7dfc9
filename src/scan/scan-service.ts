// What the interfaces (REST, SSE, MCP) ask of scans: start one or join the
// one in flight for the same (ip, scan type), watch it, read its state. It
// queues scans and listens to their ends; running them is the scanner
// role's job (scan-runner.ts).
import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import { ApiError } from '../api/api-error.js';
import type { ScanResult } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanAdmit } from '../limits/scan-admit.js';
import type { Clock } from '../model/clock.js';
import { isFinal, pathEtaSeconds, queuedRecord, type ScanOrigin, type ScanRecord } from '../model/scan-record.js';
import type { ResultStore } from '../store/result-store.js';
import { EtaEstimator } from './eta-estimator.js';
import { type FinalEntry, FinalResults } from './final-results.js';
import type { RecordWriter } from './record-writer.js';
import { finalBody, type InFlightFacts, inFlightBody, noneBody, progressBody, scanQueuedBody } from './result-view.js';
import type { EndedScan, InitialEvent, ScanEvents, ScanListener } from './scan-events.js';
import type { ScanQueue } from './scan-queue.js';
import type { Scans, StartResult, Watch } from './scans.js';

export interface ScanServiceOptions {
  store: ResultStore;
  writer: RecordWriter;
  queue: ScanQueue;
  events: ScanEvents;
  clock: Clock;
  logger: Logger;
}

/** The service is shutting down and takes no new scans. */
export class ShuttingDownError extends ApiError {
  constructor() {
    super('unavailable', 'the service is shutting down; try again shortly');
  }
}

interface LiveScan {
  record: ScanRecord;
  /** Settles when the scan is admitted and recorded; rejects if refused. */
  accepted: Promise<void>;
}

const UNWATCHED: Watch = Object.freeze({ initial: [], unsubscribe: () => {} });

export class ScanService implements Scans {
  // Keyed by type, then ip: a GET finds its scan without building a key.
  private readonly live: Record<ScanType, Map<string, LiveScan>> = { fast: new Map(), deep: new Map() };
  private readonly liveIds = new Set<string>();
  private readonly finals = new FinalResults();
  private readonly eta = new EtaEstimator();
  private readonly log: Logger;
  private idleWaiters: (() => void)[] = [];
  private accepting = true;

  constructor(private readonly options: ScanServiceOptions) {
    this.log = options.logger;
    options.events.onEnded((ended) => this.ended(ended));
  }

  /** Scans.start; a refusal of `admit` is also thrown to any request that joined meanwhile. */
  async start(ip: string, scanType: ScanType, origin: ScanOrigin, listener?: ScanListener, admit?: ScanAdmit): Promise<StartResult> {
    if (!this.accepting) throw new ShuttingDownError();
    const live = this.live[scanType];
    const existing = live.get(ip);
    if (existing !== undefined) {
      await existing.accepted;
      const { record } = existing;
      this.log.info({ event: 'scan_joined', ip, scanType, origin, scanId: record.id }, 'request joined a scan in flight');
      const body = scanQueuedBody(record, true, this.facts(record).etaSeconds);
      return { scanId: record.id, body, coalesced: true, ...this.subscribe(record, listener) };
    }

    const record = queuedRecord(randomUUID(), ip, scanType, origin, this.options.clock.now());
    const scan: LiveScan = { record, accepted: Promise.resolve() };
    live.set(ip, scan); // before any await: concurrent requests join it
    this.liveIds.add(record.id);
    scan.accepted = (async () => {
      await admit?.charge();
      await this.options.writer.write(record);
    })();
    try {
      await scan.accepted;
    } catch (error) {
      live.delete(ip);
      this.liveIds.delete(record.id);
      this.notifyIfIdle();
      throw error;
    }
    this.log.info({ event: 'scan_queued', ip, scanType, origin, scanId: record.id }, 'scan queued');
    this.options.queue.enqueue(record);
    const body = scanQueuedBody(record, false, this.facts(record).etaSeconds); // in line, so its place counts
    return { scanId: record.id, body, coalesced: false, ...this.subscribe(record, listener) };
  }

  /**
   * Takes up `record`, a scan a previous process accepted and left queued or
   * running (already stored, already charged): it is in flight again, so
   * requests join it, and it goes back in line.
   */
  resume(record: ScanRecord): void {
    const live = this.live[record.scanType];
    if (live.has(record.ip)) throw new Error(`a scan of ${record.ip} (${record.scanType}) is in flight already`);
    live.set(record.ip, { record, accepted: Promise.resolve() });
    this.liveIds.add(record.id);
    this.options.queue.enqueue(record);
  }

  async watch(ip: string, scanType: ScanType, listener: ScanListener, afterId?: number): Promise<Watch | null> {
    const scan = this.live[scanType].get(ip);
    if (scan === undefined) return null;
    if (afterId === undefined) return this.subscribe(scan.record, listener);
    // Ids keep growing for the whole scan, so the stamped snapshot is newer than any id sent.
    const initial: InitialEvent[] =
      scan.record.status === 'running' ? [{ name: 'scan:progress', data: progressBody(scan.record, undefined, this.options.clock.now()) }] : [];
    return this.options.events.subscribe(scan.record.id, listener, initial);
  }

  /** Scans.result; a finished body is the same object on every call until it changes. */
  async result(ip: string, scanType: ScanType): Promise<ScanResult> {
    const known = this.resultInMemory(ip, scanType);
    if (known !== undefined) return known;
    const record = await this.options.store.get(ip, scanType);
    if (record === null || !isFinal(record.status)) return noneBody(ip, scanType);
    return this.finalOrNone(this.finals.remember({ record, body: finalBody(record) }), ip, scanType);
  }

  resultInMemory(ip: string, scanType: ScanType): ScanResult | undefined {
    const scan = this.live[scanType].get(ip);
    if (scan !== undefined) return inFlightBody(scan.record, this.facts(scan.record));
    const final = this.finals.get(ip, scanType);
    return final === undefined ? undefined : this.finalOrNone(final, ip, scanType);
  }

  /** Scans in flight (queued or running). */
  get inFlight(): number {
    return this.liveIds.size;
  }

  /** Whether the scan with this id is still queued or running. */
  isLive(scanId: string): boolean {
    return this.liveIds.has(scanId);
  }

  /** Refuses new scans from now on (ShuttingDownError). */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Resolves when no scan is in flight, or after `timeoutMs` when given. */
  idle(timeoutMs?: number): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (timeoutMs === undefined) return idle;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    return Promise.race([idle, timeout]).finally(() => clearTimeout(timer));
  }

  private ended(ended: EndedScan): void {
    const { record } = ended;
    this.finals.remember(ended);
    if (this.live[record.scanType].get(record.ip)?.record.id === record.id) this.live[record.scanType].delete(record.ip);
    this.liveIds.delete(record.id);
    if (record.status === 'complete') this.eta.observe(record.scanType, record.durationMs!);
    this.notifyIfIdle();
  }

  private finalOrNone(final: FinalEntry, ip: string, scanType: ScanType): ScanResult {
    return final.expiresAt !== null && final.expiresAt <= this.options.clock.now() ? noneBody(ip, scanType) : final.body;
  }

  private notifyIfIdle(): void {
    if (this.inFlight > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private facts(record: ScanRecord): InFlightFacts {
    const { queue, clock } = this.options;
    const { scanType, status, startedAt } = record;
    const concurrency = queue.concurrency(scanType);
    if (status === 'queued') {
      const position = queue.position(record);
      return { queuePosition: position, etaSeconds: this.eta.etaSeconds(scanType, position + queue.running(scanType), concurrency) };
    }
    const elapsed = clock.now() - (startedAt ?? clock.now());
    const fromPath = pathEtaSeconds(record, clock.now());
    return { queuePosition: 0, etaSeconds: fromPath ?? this.eta.etaSeconds(scanType, 0, concurrency, elapsed) };
  }

  private subscribe(record: ScanRecord, listener?: ScanListener): Watch {
    if (listener === undefined) return UNWATCHED;
    const initial: InitialEvent[] = [{ name: 'scan:queued', data: inFlightBody(record, this.facts(record)) }];
    if (record.status === 'running') initial.push({ name: 'scan:progress', data: progressBody(record, undefined, this.options.clock.now()) });
    return this.options.events.subscribe(record.id, listener, initial);
  }
}
