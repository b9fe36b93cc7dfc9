// Issue #24's load case for the scanner: twenty deep scans of twenty hosts,
// each behind its own 200 ms path with 1 % loss each way, all at once in
// one process (bench/scanner/scan-many-process.mjs); every port of every host must
// come out exact, and the process must stay under 400 MB of RSS.

import { DEEP_PORTS } from '../../src/api/scan-ports.js';
import { assertAllowedTarget } from '../../support/allowed-target.js';
import { createNetnsHost, type NetnsHost } from '../../support/netns-host.js';
import { mismatches } from '../../support/scan-compare.js';
import { lastJsonLine, runTimed } from '../lib/timed-child.js';
import type { ScanProcessResult } from './scan-runners.js';
import { count, seconds } from './scanner-figures.js';

const HOSTS = 20;
const PATH = { rttMs: 200, jitterMs: 20, loss: 0.01 } as const;
const RSS_GOAL_MB = 400;
const SCAN_MANY = new URL('./scan-many-process.mjs', import.meta.url).pathname;
const TIMEOUT_MS = 15 * 60_000;

/** Wrong states of one host's scan (unscanned ports count as wrong). */
export function wrongOf(scan: ScanProcessResult, host: NetnsHost): number {
  const states = new Map(DEEP_PORTS.map((port) => [port, 'closed' as const] as [number, 'open' | 'closed' | 'filtered']));
  for (const port of scan.open) states.set(port, 'open');
  for (const port of scan.filtered) states.set(port, 'filtered');
  return mismatches(states, (port) => host.stateOf(port)).length + (65535 - scan.portsScanned);
}

/** Runs the case and returns its figure as one line, or throws. */
export async function runConcurrentPaths(log: (line: string) => void): Promise<string> {
  const hosts: NetnsHost[] = [];
  try {
    for (let i = 0; i < HOSTS; i++) hosts.push(await createNetnsHost({ path: { ...PATH, seed: i + 1 } }));
    for (const host of hosts) assertAllowedTarget(host.ipv4);
    log(`concurrent: ${HOSTS} hosts behind ${PATH.rttMs} ms ± ${PATH.jitterMs} ms paths, ${PATH.loss * 100} % loss each way`);
    const { stdout, elapsedMs } = await runTimed(
      process.execPath,
      [SCAN_MANY, ...hosts.map((h) => h.ipv4), '--budget-ms', String(TIMEOUT_MS - 60_000), '--engine', 'connect'],
      TIMEOUT_MS,
    );
    const { scans, peakRssMb } = lastJsonLine<{ scans: ScanProcessResult[]; peakRssMb: number }>(stdout);
    const wrong = scans.map((scan, i) => wrongOf(scan, hosts[i]!));
    const statuses = [...new Set(scans.map((scan) => scan.status))];
    const slowest = Math.max(...scans.map((scan) => scan.scanMs));
    const fastest = Math.min(...scans.map((scan) => scan.scanMs));
    const exact = wrong.every((w) => w === 0) && statuses.length === 1 && statuses[0] === 'complete';
    const met = exact && peakRssMb < RSS_GOAL_MB;
    return (
      `${HOSTS} deep scans of ${HOSTS} hosts behind ${PATH.rttMs} ms ± ${PATH.jitterMs} ms paths with ${PATH.loss * 100} % loss each way, all at once in one process: ` +
      `whole process ${seconds(elapsedMs)}, scans ${seconds(fastest)} to ${seconds(slowest)}, ${count(HOSTS * 65535)} ports; statuses ${statuses.join(', ')}; ` +
      `wrong states ${wrong.join(', ')}; peak RSS ${peakRssMb.toFixed(1)} MB (goal: all exact, under ${RSS_GOAL_MB} MB): ${met ? 'met' : 'NOT met'}`
    );
  } finally {
    for (const host of hosts) await host.close();
  }
}
