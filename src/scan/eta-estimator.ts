// Indicative scan durations per type, learnt from the scans that ended, for
// eta_seconds. A hint for polling intervals, not a promise.
import type { ScanType } from '../api/scan-type.js';

/** Before any scan has ended: the interface's typical times, rounded down. */
const INITIAL_MS: Record<ScanType, number> = { fast: 10_000, deep: 60_000, udp: 5_000 };
/** Weight of the newest observation in the moving average. */
const ALPHA = 0.2;

export class EtaEstimator {
  private readonly averageMs: Record<ScanType, number> = { ...INITIAL_MS };
  private readonly seen: Record<ScanType, boolean> = { fast: false, deep: false, udp: false };

  observe(scanType: ScanType, durationMs: number): void {
    this.averageMs[scanType] = this.seen[scanType] ? this.averageMs[scanType] + ALPHA * (durationMs - this.averageMs[scanType]) : durationMs;
    this.seen[scanType] = true;
  }

  /**
   * Seconds until a scan is likely done: `ahead` scans wait before it in a
   * queue that runs `concurrency` at once; `elapsedMs` it has run already.
   */
  etaSeconds(scanType: ScanType, ahead: number, concurrency: number, elapsedMs = 0): number {
    const rounds = Math.floor(ahead / Math.max(1, concurrency));
    const ms = this.averageMs[scanType] * (rounds + 1) - elapsedMs;
    return Math.max(0, Math.ceil(ms / 1000));
  }
}
