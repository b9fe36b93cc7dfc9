// One timed scan of a target by each tool the scanner benchmark compares
// (selfscan, nmap -sT, the fixed-batch sweep), each in a process of its own,
// judged against the fixture's truth.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { DEEP_PORTS } from '../../src/api/scan-ports.js';
import type { EngineChoice, EngineName } from '../../src/native/engine-choices.js';
import type { PollerChoice } from '../../src/native/poller-choices.js';
import type { ScanEndStatus } from '../../src/native/scanner.js';
import { assertAllowedTarget } from '../../support/allowed-target.js';
import type { PortState } from '../../support/netns-host.js';
import { nmapScan } from '../../support/nmap.js';
import { mismatches } from '../../support/scan-compare.js';
import { lastJsonLine, runTimed } from '../lib/timed-child.js';
import { DEFAULT_WINDOW, type SweepResult } from './fixed-batch-sweep.js';

/** What bench/scanner/scan-process.mjs prints. */
export interface ScanProcessResult {
  status: ScanEndStatus;
  /** From scan() to its summary, inside the process. */
  scanMs: number;
  /** The engine's own durationMs. */
  engineMs: number;
  /** The probe engine that ran (the scanner's stats().engine). */
  engine: EngineName;
  /** The process's CPU time, user + system of all its threads, when the scan was done. */
  cpuMs: number;
  open: number[];
  filtered: number[];
  closed: number;
  portsScanned: number;
}

/** One run of one tool. */
export interface ToolRun {
  /** Whole-process wall time. */
  ms: number;
  /** Ports whose state differs from the truth (not all scanned counts as wrong). */
  wrong: number;
  /** A few of them, as "port: got/expected". */
  examples: string[];
  /** For our scans: scan() to summary inside the process, without start-up. */
  innerMs?: number;
  /** The process's CPU time (user + system), where the runner measures it. */
  cpuMs?: number;
  /** Tool-specific notes, e.g. connect error counts. */
  note: string;
}

/** The expected state of a port, e.g. a NetnsHost's stateOf. */
export type Truth = (port: number) => PortState;

const SCAN_PROCESS = fileURLToPath(new URL('./scan-process.mjs', import.meta.url));
const SWEEP = fileURLToPath(new URL('./fixed-batch-sweep.ts', import.meta.url));
/** Generous: today's engine takes over a minute on the limited hosts. */
const OUR_TIMEOUT_MS = 10 * 60_000;
const OUR_BUDGET_MS = 8 * 60_000;
const SWEEP_TIMEOUT_MS = 5 * 60_000;
/** The sweep's window needs 4,500 descriptors, more than the usual soft limit of 1,024; this many leaves room. */
const SWEEP_NOFILE = 20_000;
const SWEEP_NOFILE_NEEDED = DEFAULT_WINDOW + 500;

function judge(states: Map<number, PortState>, truth: Truth): { wrong: number; examples: string[] } {
  const wrong = mismatches(states, truth);
  return { wrong: wrong.length, examples: wrong.slice(0, 5) };
}

/** Every port closed except the listed open and filtered ones. */
function statesFromLists(open: readonly number[], filtered: readonly number[]): Map<number, PortState> {
  const states = new Map<number, PortState>(DEEP_PORTS.map((port) => [port, 'closed']));
  for (const port of open) states.set(port, 'open');
  for (const port of filtered) states.set(port, 'filtered');
  return states;
}

/**
 * Our deep scan of all ports, on `poller` and `engine`; a scan that ends
 * early leaves its unscanned ports wrong. Throws if another engine than the
 * one named ran.
 */
export async function runOurs(
  ip: string,
  truth: Truth,
  banners = true,
  poller: PollerChoice = 'auto',
  engine: EngineChoice = 'auto',
): Promise<ToolRun & { scan: ScanProcessResult }> {
  assertAllowedTarget(ip);
  const args = [SCAN_PROCESS, ip, '--budget-ms', String(OUR_BUDGET_MS), '--poller', poller, '--engine', engine];
  if (!banners) args.push('--no-banners');
  const { stdout, elapsedMs } = await runTimed(process.execPath, args, OUR_TIMEOUT_MS);
  const scan = lastJsonLine<ScanProcessResult>(stdout);
  if (engine !== 'auto' && scan.engine !== engine) throw new Error(`asked for the ${engine} engine, the ${scan.engine} engine ran`);
  const states = statesFromLists(scan.open, scan.filtered);
  let { wrong, examples } = judge(states, truth);
  if (scan.status !== 'complete') {
    // Unscanned ports read as closed above; count them as wrong whatever the truth.
    const missing = 65535 - scan.portsScanned;
    wrong += missing;
    examples = [`${missing} ports unscanned (${scan.status})`, ...examples];
  }
  return { ms: elapsedMs, wrong, examples, innerMs: scan.scanMs, cpuMs: scan.cpuMs, note: '', scan };
}

/** `nmap -sT -p- -n -Pn -T<timing>`, killed after `timeoutMs` if given (NmapStopped). */
export async function runNmap(ip: string, truth: Truth, timing: 'T4' | 'T5' = 'T4', timeoutMs?: number): Promise<ToolRun> {
  const { states, elapsedMs } = await nmapScan(ip, { timing, timeoutMs });
  return { ms: elapsedMs, ...judge(states, truth), note: '' };
}

/** This process's open-files limits (Infinity for unlimited). */
function openFilesLimit(): { soft: number; hard: number } {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const [soft, hard] = (line ?? '')
    .split(/\s+/)
    .slice(3, 5)
    .map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  if (soft === undefined || hard === undefined || Number.isNaN(soft) || Number.isNaN(hard)) {
    throw new Error('cannot read the open-files limit from /proc/self/limits');
  }
  return { soft, hard };
}

/**
 * The fixed-batch sweep (fixed-batch-sweep.ts) with its soft descriptor
 * limit raised by prlimit (raising the soft limit up to the hard one needs
 * no privilege; raising the hard one may be refused even to root in a
 * container, so a hard limit below the sweep's need is an error).
 */
export async function runSweep(ip: string, truth: Truth): Promise<ToolRun> {
  const { soft, hard } = openFilesLimit();
  if (hard < SWEEP_NOFILE_NEEDED) {
    throw new Error(`the sweep needs ${SWEEP_NOFILE_NEEDED} descriptors but the hard limit is ${hard}: run the bench under a raised limit (ulimit -Hn)`);
  }
  const target = Math.max(soft, Math.min(hard, SWEEP_NOFILE));
  const limit = (n: number): string => (n === Infinity ? 'unlimited' : String(n));
  const { stdout, elapsedMs } = await runTimed(
    'prlimit',
    [`--nofile=${limit(target)}:${limit(hard)}`, process.execPath, '--import', 'tsx', SWEEP, ip],
    SWEEP_TIMEOUT_MS,
  );
  const sweep = lastJsonLine<SweepResult>(stdout);
  const errors = Object.entries(sweep.errors).map(([code, n]) => `${code} ×${n}`);
  return {
    ms: elapsedMs,
    ...judge(statesFromLists(sweep.open, sweep.filtered), truth),
    note: errors.length > 0 ? `connect errors counted as closed: ${errors.join(', ')}` : '',
  };
}
