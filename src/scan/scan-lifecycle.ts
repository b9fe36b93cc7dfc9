// What the interfaces (REST, SSE, MCP) ask of scans, one implementation for
// one process and for every API node of a cluster: start a scan or join
// the one in flight for the same (ip, scan type), watch it (a new watcher's
// first events, or a resume after Last-Event-ID), read its state. Where
// scans are kept is the book's (scan-book.ts); where they run is the
// work's (scan-work.ts); how they end is the finisher's (scan-finisher.ts).
import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanResult } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../model/clock.js';
import { pathEtaSeconds, placeRecord, queuedRecord, type ScanOrigin, type ScanRecord } from '../model/scan-record.js';
import { EtaEstimator } from './eta-estimator.js';
import { type InFlightFacts, inFlightBody, noneBody, progressBody, scanQueuedBody } from './result-view.js';
import type { FirstEvents, KnownScan, ScanBook } from './scan-book.js';
import type { InitialEvent, ScanListener } from './scan-events.js';
import type { ScanWork } from './scan-work.js';
import type { AdmitScans, Scans, StartResult, Watch } from './scans.js';
import { terminalEvent } from './stream-events.js';

export interface ScanLifecycleOptions {
  book: ScanBook;
  work: ScanWork;
  clock: Clock;
  logger: Logger;
  /** Counts scans started and joined; absent: nothing counted. */
  metrics?: Pick<Metrics, 'scanStarted' | 'scanJoined'>;
}

const UNWATCHED: Watch = Object.freeze({ initial: [], unsubscribe: () => {} });

export class ScanLifecycle implements Scans {
  private readonly eta = new EtaEstimator();

  constructor(private readonly options: ScanLifecycleOptions) {
    options.book.onEnded((record) => {
      if (record.status === 'complete') this.eta.observe(record.scanType, record.durationMs!);
    });
  }

  async start(
    ip: string,
    scanType: ScanType,
    origin: ScanOrigin,
    listener?: ScanListener,
    admit?: AdmitScans,
    regionsAsked?: RegionsAsked,
  ): Promise<StartResult> {
    const { book, work, clock, logger, metrics } = this.options;
    const record = placeRecord(queuedRecord(randomUUID(), ip, scanType, origin, clock.now()), await work.place(regionsAsked));
    const joinedId = await book.begin(record, admit?.(record.regions?.length ?? 1));
    const scanId = joinedId ?? record.id;
    if (joinedId !== null) {
      logger.info({ event: 'scan_joined', ip, scanType, origin, scanId, regionsAsked }, 'request joined a scan in flight');
      metrics?.scanJoined(scanType, origin);
    } else {
      logger.info({ event: 'scan_queued', ip, scanType, origin, scanId, region: record.region, regions: record.regions }, 'scan queued');
      metrics?.scanStarted(record);
      await work.dispatch(record); // before the body: its place in line counts
    }
    // The scan as it is now: read by the watcher's first events when there is one, else read for a join; a new scan is as recorded.
    let current = record;
    let watch = UNWATCHED;
    if (listener !== undefined) {
      const seen = (snapshot: ScanRecord): void => {
        current = snapshot;
      };
      watch = (await this.follow(scanId, ip, scanType, listener, { seen, regionsAsked })) ?? (await this.endedWatch(ip, scanType, regionsAsked));
    } else if (joinedId !== null) {
      const known = book.peek(ip, scanType, regionsAsked) ?? (await book.read(ip, scanType, regionsAsked));
      if (known !== null && 'inFlight' in known && known.inFlight.id === scanId) current = known.inFlight;
    }
    return { scanId, body: scanQueuedBody(current, this.facts(current).etaSeconds), coalesced: joinedId !== null, ...watch };
  }

  async watch(ip: string, scanType: ScanType, listener: ScanListener, afterId?: number, regionsAsked?: RegionsAsked): Promise<Watch | null> {
    if (regionsAsked !== undefined) await this.options.work.checkRegions(regionsAsked);
    const scanId = await this.options.book.inFlight(ip, scanType, regionsAsked);
    return scanId === null ? null : this.follow(scanId, ip, scanType, listener, { afterId, regionsAsked });
  }

  /** Scans.result; a finished body is the same object on every call while the book keeps it in memory. */
  async result(ip: string, scanType: ScanType, regionsAsked?: RegionsAsked): Promise<ScanResult> {
    const { book, work } = this.options;
    if (regionsAsked !== undefined) await work.checkRegions(regionsAsked);
    return this.view(book.peek(ip, scanType, regionsAsked) ?? (await book.read(ip, scanType, regionsAsked)), ip, scanType);
  }

  resultInMemory(ip: string, scanType: ScanType): ScanResult | undefined {
    const known = this.options.book.peek(ip, scanType);
    return known === undefined ? undefined : this.view(known, ip, scanType);
  }

  /** Attaches `listener` to scan `scanId`; `afterId` resumes after that event; `seen` gets the scan's state as read. */
  private follow(
    scanId: string,
    ip: string,
    scanType: ScanType,
    listener: ScanListener,
    options: { afterId?: number; seen?: (record: ScanRecord) => void; regionsAsked?: RegionsAsked },
  ): Promise<Watch | null> {
    const { afterId, seen, regionsAsked } = options;
    const first: FirstEvents = (record, sequence) => {
      seen?.(record);
      if (afterId === undefined) return this.firstEvents(record);
      // A resume: the scan's state as one scan:progress, when it is newer than the last event sent.
      return sequence > afterId && record.status === 'running' ? [this.progress(record)] : [];
    };
    return this.options.book.follow(scanId, ip, scanType, listener, first, regionsAsked);
  }

  /** A new watcher's first events: the scan as queued, then its progress if it runs. */
  private firstEvents(record: ScanRecord): InitialEvent[] {
    const queued: InitialEvent = { name: 'scan:queued', data: inFlightBody(record, this.facts(record)) };
    return record.status === 'running' ? [queued, this.progress(record)] : [queued];
  }

  private progress(record: ScanRecord): InitialEvent {
    return { name: 'scan:progress', data: progressBody(record, undefined, this.options.clock.now()) };
  }

  /** The scan ended between its start and the watch: its end, from the stored result. */
  private async endedWatch(ip: string, scanType: ScanType, regionsAsked?: RegionsAsked): Promise<Watch> {
    const known = await this.options.book.read(ip, scanType, regionsAsked);
    if (known === null || !('final' in known)) return UNWATCHED;
    return { initial: [terminalEvent(known.final.body, 0)], unsubscribe: () => {} };
  }

  private view(known: KnownScan | null, ip: string, scanType: ScanType): ScanResult {
    if (known === null) return noneBody(ip, scanType);
    if ('inFlight' in known) return inFlightBody(known.inFlight, this.facts(known.inFlight));
    const { body, expiresAt } = known.final;
    return expiresAt !== null && expiresAt <= this.options.clock.now() ? noneBody(ip, scanType) : body;
  }

  private facts(record: ScanRecord): InFlightFacts {
    const { work, clock } = this.options;
    const { scanType, status, startedAt } = record;
    const concurrency = work.concurrency(scanType);
    if (status === 'queued') {
      const position = work.position(record);
      return { queuePosition: position, etaSeconds: this.eta.etaSeconds(scanType, position + work.running(scanType), concurrency) };
    }
    const elapsed = clock.now() - (startedAt ?? clock.now());
    return { queuePosition: 0, etaSeconds: pathEtaSeconds(record, clock.now()) ?? this.eta.etaSeconds(scanType, 0, concurrency, elapsed) };
  }
}
