// Where a cluster's new scan runs: a region with a live scanner node, and
// its first chunk jobs queued there (chunk-jobs.ts) with its deadline. The
// lines of the regions are BullMQ's: an API node does not know a scan's
// place in them, so it says 0 and estimates as if the scan ran alone.
// Once the start's record and first jobs are written, they are secured
// against a failover (replica-wait.ts): written again if need be.

import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanPlace, ScanRecord } from '../model/scan-record.js';
import type { ScanWork } from '../scan/scan-work.js';
import type { ChunkDispatch } from './chunk-jobs.js';
import type { RedisScanStarts } from './redis-scan-starts.js';
import { orUnavailable } from './redis-unavailable.js';
import type { ReplicaWait } from './replica-wait.js';
import type { ScannerRegions } from './scanner-registry.js';

export interface ChunkWorkOptions {
  regions: ScannerRegions;
  dispatch: ChunkDispatch;
  /** Chunks of one scan in flight at once, cluster-wide. */
  window: number;
  budgetMs: Readonly<Record<ScanType, number>>;
  /** Secures each start; `starts` writes a start's record again. */
  durable?: ReplicaWait;
  starts: RedisScanStarts;
}

export class ChunkWork implements ScanWork {
  constructor(private readonly options: ChunkWorkOptions) {}

  /** Throws `invalid_regions` for a region no scanner node has announced. */
  async checkRegions(regionsAsked: RegionsAsked): Promise<void> {
    await orUnavailable(this.options.regions.known(regionsAsked));
  }

  async place(regionsAsked?: RegionsAsked): Promise<ScanPlace> {
    const { regions } = this.options;
    if (regionsAsked === undefined) return { region: await orUnavailable(regions.pick()) };
    return { regions: await orUnavailable(regions.resolve(regionsAsked)), regionsAsked };
  }

  dispatch(record: ScanRecord): Promise<void> {
    const { dispatch, window, budgetMs, durable, starts } = this.options;
    const first = () => dispatch.first(record, window, record.queuedAt + budgetMs[record.scanType]);
    const replay = async () => {
      const outcome = await starts.restore(record);
      // The jobs may be lost with the record or after it; their fixed ids make queueing a surviving one a no-op.
      if (outcome !== 'superseded') await first();
      return outcome;
    };
    return orUnavailable(
      (async () => {
        await first();
        await durable?.secure(`scan ${record.id} started`, replay);
      })(),
    );
  }

  position(): number {
    return 0;
  }

  running(): number {
    return 0;
  }

  concurrency(): number {
    return 1;
  }
}
