// The scan book of a cluster, as any API node sees it: a start is one
// atomic step in Redis (join, or charge and record: redis-scan-starts.ts),
// a poll reads the scan's state in one round trip, and watchers follow a
// scan through the events channel, numbered by the scan's own sequence
// (cluster-watchers.ts). Nothing is kept here that another API node could
// not answer alike, and a Redis that cannot be reached is a 503.
import type { ScanType } from '../api/scan-type.js';
import type { ScanAdmit } from '../limits/rate/scan-admit.js';
import { isFinal, type ScanRecord } from '../model/scan-record.js';
import { finalBody } from '../scan/result-view.js';
import type { FirstEvents, KnownScan, ScanBook } from '../scan/scan-book.js';
import type { ScanListener } from '../scan/scan-events.js';
import type { Watch } from '../scan/scans.js';
import type { ClusterWatchers } from './cluster-watchers.js';
import type { RedisScanProgress } from './redis-scan-progress.js';
import type { RedisScanStarts } from './redis-scan-starts.js';
import { orUnavailable } from './redis-unavailable.js';

export class RedisScanBook implements ScanBook {
  constructor(
    private readonly starts: RedisScanStarts,
    private readonly progress: RedisScanProgress,
    private readonly watchers: ClusterWatchers,
  ) {}

  begin(record: ScanRecord, admit?: ScanAdmit): Promise<string | null> {
    return orUnavailable(
      (async () => {
        const outcome = await this.starts.start(record, admit?.charges ?? []);
        if (outcome.kind === 'joined') return outcome.scanId;
        admit?.judge(outcome.decisions); // throws the refusal
        return null;
      })(),
    );
  }

  inFlight(ip: string, scanType: ScanType, regionsAsked?: string): Promise<string | null> {
    return orUnavailable(this.progress.inFlight(ip, scanType, regionsAsked));
  }

  /** Every answer comes from Redis: another node may have changed it. */
  peek(): undefined {
    return undefined;
  }

  read(ip: string, scanType: ScanType, regionsAsked?: string): Promise<KnownScan | null> {
    return orUnavailable(
      this.current(ip, scanType, regionsAsked).then((record): KnownScan | null => {
        if (record === null) return null;
        if (!isFinal(record.status)) return { inFlight: record };
        return { final: { body: finalBody(record), expiresAt: record.expiresAt } };
      }),
    );
  }

  /** The record in one round trip; a multi-region scan in flight is read again with its chunks, for each region's progress. */
  private async current(ip: string, scanType: ScanType, regionsAsked?: string): Promise<ScanRecord | null> {
    const { progress } = this;
    const record = await progress.current(ip, scanType, regionsAsked);
    if (record === null || record.vantages === undefined || isFinal(record.status)) return record;
    const snapshot = await progress.snapshot(record.id, ip, scanType, regionsAsked);
    return snapshot !== null && !snapshot.ended ? snapshot.record : progress.current(ip, scanType, regionsAsked);
  }

  follow(scanId: string, ip: string, scanType: ScanType, listener: ScanListener, first: FirstEvents, regionsAsked?: string): Promise<Watch | null> {
    return orUnavailable(this.watchers.watch(scanId, ip, scanType, listener, first, regionsAsked));
  }

  /** A cluster node hears only of the ends of the scans it streams: its estimates keep their defaults. */
  onEnded(): void {}
}
