// The scans of an API node in a cluster: a start is one atomic step in
// Redis (join, or charge and record), a new scan's first chunks go to its
// region's queue, and watchers follow the scan through the events channel.
// Nothing is kept here that another API node could not answer alike.
import { randomUUID } from 'node:crypto';

import type { Logger } from 'pino';

import type { ScanResult } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanAdmit } from '../limits/scan-admit.js';
import type { Clock } from '../model/clock.js';
import { isFinal, queuedRecord, type ScanOrigin, type ScanRecord } from '../model/scan-record.js';
import { EtaEstimator } from '../scan/eta-estimator.js';
import { finalBody, inFlightBody, noneBody, scanQueuedBody } from '../scan/result-view.js';
import type { ScanListener, StreamEvent } from '../scan/scan-events.js';
import type { Scans, StartResult, Watch } from '../scan/scans.js';
import { progressEvent, terminalEvent } from '../scan/stream-events.js';
import type { ResultStore } from '../store/result-store.js';
import type { ChunkDispatch } from './chunk-jobs.js';
import type { ClusterWatchers, FirstEvents } from './cluster-watchers.js';
import type { RedisScanProgress } from './redis-scan-progress.js';
import type { RedisScanStarts } from './redis-scan-starts.js';
import { orUnavailable } from './redis-unavailable.js';
import type { ScannerRegions } from './scanner-registry.js';

export interface ClusterScansOptions {
  starts: RedisScanStarts;
  progress: RedisScanProgress;
  store: ResultStore;
  watchers: ClusterWatchers;
  regions: ScannerRegions;
  dispatch: ChunkDispatch;
  /** Chunks of one scan in flight at once, cluster-wide. */
  window: number;
  budgetMs: Readonly<Record<ScanType, number>>;
  clock: Clock;
  logger: Logger;
}

const UNWATCHED: Watch = Object.freeze({ initial: [], unsubscribe: () => {} });

export class ClusterScans implements Scans {
  private readonly eta = new EtaEstimator();

  constructor(private readonly options: ClusterScansOptions) {}

  start(ip: string, scanType: ScanType, origin: ScanOrigin, listener?: ScanListener, admit?: ScanAdmit): Promise<StartResult> {
    return orUnavailable(this.startOrJoin(ip, scanType, origin, listener, admit));
  }

  watch(ip: string, scanType: ScanType, listener: ScanListener, afterId?: number): Promise<Watch | null> {
    return orUnavailable(
      (async () => {
        const scanId = await this.options.progress.inFlight(ip, scanType);
        return scanId === null ? null : this.follow(scanId, ip, scanType, listener, { afterId });
      })(),
    );
  }

  result(ip: string, scanType: ScanType): Promise<ScanResult> {
    return orUnavailable(this.read(ip, scanType));
  }

  /** Every answer comes from Redis: another node may have changed it. */
  resultInMemory(): undefined {
    return undefined;
  }

  private async startOrJoin(ip: string, scanType: ScanType, origin: ScanOrigin, listener?: ScanListener, admit?: ScanAdmit): Promise<StartResult> {
    const { starts, regions, dispatch, clock, logger } = this.options;
    const region = await regions.pick();
    const record = { ...queuedRecord(randomUUID(), ip, scanType, origin, clock.now()), region };
    const outcome = await starts.start(record, admit?.charges ?? []);
    if (outcome.kind !== 'joined') admit?.judge(outcome.decisions); // throws the refusal
    const joined = outcome.kind === 'joined';
    const scanId = joined ? outcome.scanId : record.id;
    if (joined) logger.info({ event: 'scan_joined', ip, scanType, origin, scanId }, 'request joined a scan in flight');
    else {
      await dispatch.first(record, this.options.window, record.queuedAt + this.options.budgetMs[scanType]);
      logger.info({ event: 'scan_queued', ip, scanType, origin, scanId, region }, 'scan queued');
    }
    // The scan as it is now: read by the watcher's snapshot when there is one, else read for a join; a new scan is as recorded.
    let current: ScanRecord = record;
    let watch = UNWATCHED;
    if (listener !== undefined) {
      const seen = (snapshot: ScanRecord): void => {
        current = snapshot;
      };
      watch = (await this.follow(scanId, ip, scanType, listener, { seen })) ?? (await this.endedWatch(ip, scanType));
    } else if (joined) {
      current = (await this.options.progress.snapshot(scanId, ip, scanType))?.record ?? record;
    }
    return { scanId, body: scanQueuedBody(current, joined, this.etaOf(current)), coalesced: joined, ...watch };
  }

  /** Attaches `listener` to scan `scanId`; `afterId` resumes after that event; `seen` gets the scan's state as read. */
  private follow(
    scanId: string,
    ip: string,
    scanType: ScanType,
    listener: ScanListener,
    options: { afterId?: number; seen?: (record: ScanRecord) => void } = {},
  ): Promise<Watch | null> {
    const { afterId, seen } = options;
    const first: FirstEvents = (record, seq) => {
      seen?.(record);
      if (afterId === undefined) return this.firstEvents(record, seq);
      return seq > afterId && record.status === 'running' ? [progressEvent(record, seq)] : [];
    };
    return this.options.watchers.watch(scanId, ip, scanType, listener, first);
  }

  /** A new watcher's first events: the scan as queued, then its progress if it runs, stamped with its last event's number. */
  private firstEvents(record: ScanRecord, seq: number): StreamEvent[] {
    const queued: StreamEvent = {
      name: 'scan:queued',
      id: seq,
      data: inFlightBody(record, { queuePosition: 0, etaSeconds: this.etaOf(record) }),
      terminal: false,
    };
    if (record.status !== 'running') return [queued];
    return [queued, progressEvent(record, seq)];
  }

  /** The scan ended between its start and the watch: its end, from the stored result. */
  private async endedWatch(ip: string, scanType: ScanType): Promise<Watch> {
    const record = await this.options.store.get(ip, scanType);
    if (record === null || !isFinal(record.status)) return UNWATCHED;
    return { initial: [terminalEvent(finalBody(record), 0)], unsubscribe: () => {} };
  }

  private async read(ip: string, scanType: ScanType): Promise<ScanResult> {
    const record = await this.options.progress.current(ip, scanType);
    if (record === null) return noneBody(ip, scanType);
    if (!isFinal(record.status)) return inFlightBody(record, { queuePosition: 0, etaSeconds: this.etaOf(record) });
    return (record.expiresAt ?? 0) <= this.options.clock.now() ? noneBody(ip, scanType) : finalBody(record);
  }

  private etaOf(record: ScanRecord): number {
    const elapsed = record.startedAt === null ? 0 : this.options.clock.now() - record.startedAt;
    return this.eta.etaSeconds(record.scanType, 0, 1, elapsed);
  }
}
