// Deep scans of several targets at once in one process, so the benchmark
// can time them together and read the process's peak memory:
//   node bench/scanner/scan-many-process.mjs <ip> [<ip> ...] [--budget-ms N] [--engine NAME]
// The caller checks the addresses (support/allowed-target.ts). Prints one
// JSON line: { scans: ScanProcessResult[] (in the order given), peakRssMb,
// engine, cpuMs } (cpuMs: the process's CPU time when every scan is done).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { DEEP_PORTS as ports } from '../../dist/api/scan-ports.js';
import { createScanner } from '../../dist/native/scanner.js';
import { processCpuMs, scanProcessResult } from './scan-process-result.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'budget-ms': { type: 'string', default: '0' },
    engine: { type: 'string', default: 'auto' },
  },
});
if (positionals.length === 0) throw new Error('usage: scan-many-process.mjs <ip> [<ip> ...] [--budget-ms N] [--engine NAME]');

/** The process's peak resident set (VmHWM), MiB. */
function peakRssMb() {
  const line = readFileSync('/proc/self/status', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

const scanner = createScanner({ engine: values.engine });
const { engine } = scanner.stats();
const scans = await Promise.all(
  positionals.map(async (ip) => {
    const started = performance.now();
    const summary = await scanner.scan({ ip, ports, budgetMs: Number(values['budget-ms']) }).done;
    return scanProcessResult(summary, started, engine);
  }),
);
process.stdout.write(`${JSON.stringify({ scans, peakRssMb: peakRssMb(), engine, cpuMs: processCpuMs() })}\n`);
