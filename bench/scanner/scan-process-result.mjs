// What a benchmark scan process prints of one scan: a ScanProcessResult
// (bench/scanner/scan-runners.ts), shared by scan-process.mjs and
// scan-many-process.mjs.
import { performance } from 'node:perf_hooks';

/**
 * The process's CPU time so far, user + system, in ms. process.cpuUsage()
 * is getrusage(RUSAGE_SELF): every thread of the process, the engine's and
 * the connect workers' included.
 */
export function processCpuMs() {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** `summary`: the scan's summary; `started`: performance.now() when it began; `engine`: the scanner's stats().engine. */
export function scanProcessResult(summary, started, engine) {
  return {
    status: summary.status,
    scanMs: performance.now() - started,
    engineMs: summary.durationMs,
    engine,
    cpuMs: processCpuMs(),
    open: summary.open.map((p) => p.port),
    filtered: summary.filtered.map((p) => p.port),
    closed: summary.closed,
    portsScanned: summary.portsScanned,
  };
}
