// What a benchmark scan process prints of one scan: a ScanProcessResult
// (bench/scanner/scan-runners.ts), shared by scan-process.mjs and
// scan-many-process.mjs.
import { performance } from 'node:perf_hooks';

/** `summary`: the scan's summary; `started`: performance.now() when it began. */
export function scanProcessResult(summary, started) {
  return {
    status: summary.status,
    scanMs: performance.now() - started,
    engineMs: summary.durationMs,
    open: summary.open.map((p) => p.port),
    filtered: summary.filtered.map((p) => p.port),
    closed: summary.closed,
    portsScanned: summary.portsScanned,
  };
}
