// The scan queue of a single process: a line per scan type in memory,
// started a few per turn of the event loop so that requests arriving
// meanwhile are answered first, instead of waiting behind the start of
// hundreds of scans.

import { ApiError } from '../api/api-error.js';
import type { RegionsAsked } from '../api/regions-asked.js';
import { SCAN_TYPES, type ScanType } from '../api/scan-type.js';
import type { ScanPlace, ScanRecord } from '../model/scan-record.js';
import type { ScanQueue, ScanWorker } from '../scan/scan-queue.js';

/** Scans started in one turn of the event loop; more wait for the next. */
const STARTS_PER_TURN = 16;

export class MemoryScanQueue implements ScanQueue {
  private readonly lines: Record<ScanType, ScanRecord[]> = { fast: [], deep: [], udp: [] };
  private readonly runningNow: Record<ScanType, number> = { fast: 0, deep: 0, udp: 0 };
  private readonly pumpScheduled: Record<ScanType, boolean> = { fast: false, deep: false, udp: false };
  /** Each waiting scan's place: increasing with each scan queued. */
  private readonly tickets = new Map<string, number>();
  private nextTicket = 0;
  private worker: ScanWorker | undefined;

  constructor(private readonly limits: Readonly<Record<ScanType, number>>) {}

  enqueue(record: ScanRecord): void {
    this.tickets.set(record.id, this.nextTicket++);
    this.lines[record.scanType].push(record);
    this.schedulePump(record.scanType);
  }

  /** One process scans from one place: any `regions` is refused. */
  async checkRegions(): Promise<void> {
    throw new ApiError(
      'invalid_regions',
      'this server runs as a single process and scans from one place; `regions` needs a cluster with scanner nodes in several regions',
    );
  }

  /** One process runs every scan itself, from where it stands. */
  async place(regionsAsked?: RegionsAsked): Promise<ScanPlace> {
    if (regionsAsked !== undefined) await this.checkRegions();
    return {};
  }

  async dispatch(record: ScanRecord): Promise<void> {
    this.enqueue(record);
  }

  position(record: ScanRecord): number {
    // Scans leave a line only from its front, so tickets give positions in O(1).
    const ticket = this.tickets.get(record.id);
    const front = this.lines[record.scanType][0];
    return ticket === undefined || front === undefined ? 0 : Math.max(0, ticket - this.tickets.get(front.id)!);
  }

  /** Scans of `scanType` waiting in line. */
  waiting(scanType: ScanType): number {
    return this.lines[scanType].length;
  }

  running(scanType: ScanType): number {
    return this.runningNow[scanType];
  }

  concurrency(scanType: ScanType): number {
    return this.limits[scanType];
  }

  process(worker: ScanWorker): void {
    this.worker = worker;
    for (const scanType of SCAN_TYPES) this.schedulePump(scanType);
  }

  takeWaiting(): ScanRecord[] {
    const waiting = SCAN_TYPES.flatMap((scanType) => this.lines[scanType].splice(0));
    for (const record of waiting) this.tickets.delete(record.id);
    return waiting;
  }

  private schedulePump(scanType: ScanType): void {
    if (this.pumpScheduled[scanType]) return;
    this.pumpScheduled[scanType] = true;
    setImmediate(() => {
      this.pumpScheduled[scanType] = false;
      this.pump(scanType);
    });
  }

  private pump(scanType: ScanType): void {
    const worker = this.worker;
    if (worker === undefined) return;
    const line = this.lines[scanType];
    for (let started = 0; line.length > 0 && this.runningNow[scanType] < this.limits[scanType]; started++) {
      if (started === STARTS_PER_TURN) return this.schedulePump(scanType);
      const record = line.shift()!;
      this.tickets.delete(record.id);
      this.runningNow[scanType]++;
      void worker(record).finally(() => {
        this.runningNow[scanType]--;
        this.schedulePump(scanType);
      });
    }
  }
}
