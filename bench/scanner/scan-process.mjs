// One selfscan deep scan in a process of its own, so the benchmark times the
// whole process as it times nmap's. Plain JavaScript over the tsc build in
// dist/ (npm run bench:scanner builds it first), so the figure is the
// scanner's, not a TypeScript loader's start-up:
//   node bench/scanner/scan-process.mjs <ip> [--no-banners] [--budget-ms N] [--poller NAME] [--engine NAME]
// The caller checks the address (support/allowed-target.ts). Prints one JSON
// line: a ScanProcessResult (bench/scanner/scan-runners.ts), with the engine
// that ran and the process's CPU time at the end.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { DEEP_PORTS as ports } from '../../dist/api/scan-ports.js';
import { createScanner } from '../../dist/native/scanner.js';
import { scanProcessResult } from './scan-process-result.mjs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'no-banners': { type: 'boolean', default: false },
    'budget-ms': { type: 'string', default: '0' },
    poller: { type: 'string', default: 'auto' },
    engine: { type: 'string', default: 'auto' },
  },
});
const ip = positionals[0];
if (ip === undefined) throw new Error('usage: scan-process.mjs <ip> [--no-banners] [--budget-ms N] [--poller NAME] [--engine NAME]');

const started = performance.now();
const scanner = createScanner({ poller: values.poller, engine: values.engine });
const summary = await scanner.scan({
  ip,
  ports,
  banners: !values['no-banners'],
  budgetMs: Number(values['budget-ms']),
}).done;
process.stdout.write(`${JSON.stringify(scanProcessResult(summary, started, scanner.stats().engine))}\n`);
