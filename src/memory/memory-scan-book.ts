// The scan book of one process: the scans in flight in memory (a request
// for the same ip and scan type joins one before it is even recorded), the
// small finished results kept for polling without a store read, and the
// rest in the store. Events come from the in-process bus, numbered only for
// scans someone watches.

import { ApiError } from '../api/api-error.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanAdmit } from '../limits/rate/scan-admit.js';
import { isFinal, type ScanRecord } from '../model/scan-record.js';
import { FinalResults } from '../scan/final-results.js';
import type { RecordWriter } from '../scan/record-writer.js';
import type { ResultStore } from '../scan/result-store.js';
import { finalBody } from '../scan/result-view.js';
import type { FirstEvents, KnownScan, ScanBook } from '../scan/scan-book.js';
import type { ScanEvents, ScanListener } from '../scan/scan-events.js';
import type { Watch } from '../scan/scans.js';

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

export class MemoryScanBook implements ScanBook {
  // Keyed by type, then ip: a poll finds its scan without building a key.
  private readonly live: Record<ScanType, Map<string, LiveScan>> = { fast: new Map(), deep: new Map(), udp: new Map() };
  private readonly liveById = new Map<string, LiveScan>();
  private readonly finals = new FinalResults();
  private readonly endedListeners: ((record: ScanRecord) => void)[] = [];
  private idleWaiters: (() => void)[] = [];
  private accepting = true;

  constructor(
    private readonly store: ResultStore,
    private readonly writer: RecordWriter,
    private readonly events: ScanEvents,
  ) {
    events.onEnded((ended) => {
      this.finals.remember(ended);
      this.forget(ended.record);
      for (const listener of this.endedListeners) listener(ended.record);
    });
  }

  /** ScanBook.begin; a refusal of `admit` is also thrown to any request that joined meanwhile. */
  async begin(record: ScanRecord, admit?: ScanAdmit): Promise<string | null> {
    if (!this.accepting) throw new ShuttingDownError();
    const existing = this.live[record.scanType].get(record.ip);
    if (existing !== undefined) {
      await existing.accepted;
      return existing.record.id;
    }
    const scan: LiveScan = { record, accepted: Promise.resolve() };
    this.track(scan); // before any await: concurrent requests join it
    scan.accepted = (async () => {
      await admit?.charge();
      await this.writer.write(record);
    })();
    try {
      await scan.accepted;
    } catch (error) {
      this.forget(record);
      throw error;
    }
    return null;
  }

  /**
   * Takes up `record`, a scan a previous process accepted and left queued or
   * running (already stored, already charged): it is in flight again, so
   * requests join it.
   */
  resume(record: ScanRecord): void {
    if (this.live[record.scanType].has(record.ip)) throw new Error(`a scan of ${record.ip} (${record.scanType}) is in flight already`);
    this.track({ record, accepted: Promise.resolve() });
  }

  async inFlight(ip: string, scanType: ScanType): Promise<string | null> {
    return this.live[scanType].get(ip)?.record.id ?? null;
  }

  peek(ip: string, scanType: ScanType): KnownScan | null | undefined {
    const scan = this.live[scanType].get(ip);
    if (scan !== undefined) return { inFlight: scan.record };
    const final = this.finals.get(ip, scanType);
    return final === undefined ? undefined : { final };
  }

  async read(ip: string, scanType: ScanType): Promise<KnownScan | null> {
    const known = this.peek(ip, scanType);
    if (known !== undefined) return known;
    const record = await this.store.get(ip, scanType);
    if (record === null || !isFinal(record.status)) return null;
    return { final: this.finals.remember({ record, body: finalBody(record) }) };
  }

  async follow(scanId: string, _ip: string, _scanType: ScanType, listener: ScanListener, first: FirstEvents): Promise<Watch | null> {
    const scan = this.liveById.get(scanId);
    if (scan === undefined) return null;
    return this.events.subscribe(scanId, listener, (nextId) => first(scan.record, nextId));
  }

  onEnded(listener: (record: ScanRecord) => void): void {
    this.endedListeners.push(listener);
  }

  /** Scans in flight (queued or running). */
  get inFlightCount(): number {
    return this.liveById.size;
  }

  /** Refuses new scans from now on (ShuttingDownError). */
  stopAccepting(): void {
    this.accepting = false;
  }

  /** Resolves when no scan is in flight, or after `timeoutMs` when given. */
  idle(timeoutMs?: number): Promise<void> {
    if (this.inFlightCount === 0) return Promise.resolve();
    const idle = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    if (timeoutMs === undefined) return idle;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    return Promise.race([idle, timeout]).finally(() => clearTimeout(timer));
  }

  private track(scan: LiveScan): void {
    this.live[scan.record.scanType].set(scan.record.ip, scan);
    this.liveById.set(scan.record.id, scan);
  }

  private forget(record: ScanRecord): void {
    if (this.live[record.scanType].get(record.ip)?.record.id === record.id) this.live[record.scanType].delete(record.ip);
    this.liveById.delete(record.id);
    if (this.inFlightCount > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
