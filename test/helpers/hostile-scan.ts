// Scans a hostile netns fixture host (support/netns-firewall.ts) and
// checks every port the scan decided against the fixture's truth. The
// states are read from the chunk events, so an `incomplete` scan is checked
// too: a complete chunk decides all of its ports (closed ones by count), a
// partial chunk only the ports it lists, and its closed count must fit in
// the truly closed ports it leaves unlisted.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { expect } from 'vitest';

import type { ScanRequest } from '../../src/native/scan-request.js';
import type { ScanChunk, Scanner, ScanSummary } from '../../src/native/scanner.js';
import type { Limit, PortRange } from '../../support/netns-firewall.js';
import type { NetnsHost, PortState } from '../../support/netns-host.js';
import { nmapScan } from '../../support/nmap.js';
import { mismatches, statesOf } from '../../support/scan-compare.js';

export type Family = 'ipv4' | 'ipv6';
export const FAMILIES: readonly Family[] = ['ipv4', 'ipv6'];

/** Each hostile case runs this many times: flaky exactness is the bug under test. */
export const REPETITIONS: readonly number[] = [1, 2, 3];

/** Ports per chunk unless a test asks otherwise; the checks below need to know it. */
export const DEFAULT_CHUNK_SIZE = 256;

/** Wrong ports quoted in a verdict; the count covers all of them. */
const QUOTED_WRONG = 20;

/** A sorted list of distinct ports from single ports and inclusive [from, to] ranges. */
export function portList(...parts: (number | readonly [number, number])[]): number[] {
  const ports = new Set<number>();
  for (const part of parts) {
    const [from, to] = typeof part === 'number' ? [part, part] : part;
    for (let port = from; port <= to; port++) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}

/** The ports of `ports` inside `range`. */
export function portsIn(ports: readonly number[], range: PortRange | null | undefined): number[] {
  return range == null ? [] : ports.filter((p) => p >= range.from && p <= range.to);
}

/** One scan of a host, with every chunk it delivered. */
export interface HostileScan {
  label: string;
  ports: readonly number[];
  chunkSize: number;
  summary: ScanSummary;
  chunks: ScanChunk[];
  /** Wall-clock time from start to the settled promise. */
  elapsedMs: number;
  /** Ports whose state the chunks name (complete chunks: all of their ports). */
  decided: Map<number, PortState>;
  /** Ports the chunks account for, anonymous closed ones of partial chunks included. */
  decidedCount: number;
  /** Chunk bookkeeping that cannot be right whatever the states (duplicates, bad counts). */
  problems: string[];
}

/**
 * Scans `host` over `family` with `request` (chunkSize defaults to
 * {@link DEFAULT_CHUNK_SIZE}) and reads the states it decided from its chunks.
 */
export async function scanHost(
  scanner: Scanner,
  host: NetnsHost,
  family: Family,
  request: Omit<ScanRequest, 'ip'>,
  label = `${host.name} ${family}`,
): Promise<HostileScan> {
  const chunkSize = request.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const chunks: ScanChunk[] = [];
  const started = performance.now();
  const summary = await scanner.scan({ ...request, ip: host[family], chunkSize }, (chunk) => chunks.push(chunk)).done;
  const elapsedMs = performance.now() - started;
  const ports = request.ports;
  return { label, ports, chunkSize, summary, chunks, elapsedMs, ...readChunks(ports, chunkSize, chunks, host) };
}

function readChunks(
  ports: readonly number[],
  chunkSize: number,
  chunks: readonly ScanChunk[],
  host: NetnsHost,
): Pick<HostileScan, 'decided' | 'decidedCount' | 'problems'> {
  const decided = new Map<number, PortState>();
  const problems: string[] = [];
  const total = Math.ceil(ports.length / chunkSize);
  const seen = new Set<number>();
  let decidedCount = 0;
  for (const chunk of chunks) {
    if (chunk.total !== total) problems.push(`chunk ${chunk.index}: total ${chunk.total}, expected ${total}`);
    if (seen.has(chunk.index)) problems.push(`chunk ${chunk.index} delivered twice`);
    seen.add(chunk.index);
    const slice = ports.slice(chunk.index * chunkSize, (chunk.index + 1) * chunkSize);
    if (slice.length === 0) {
      problems.push(`chunk ${chunk.index} lies beyond the ${ports.length} ports`);
      continue;
    }
    const inSlice = new Set(slice);
    const listed = new Set<number>();
    for (const [state, list] of [
      ['open', chunk.open],
      ['filtered', chunk.filtered],
    ] as const) {
      for (const { port } of list) {
        if (!inSlice.has(port)) problems.push(`chunk ${chunk.index} lists ${state} port ${port}, not one of its ports`);
        else if (listed.has(port)) problems.push(`chunk ${chunk.index} lists port ${port} twice`);
        else {
          listed.add(port);
          decided.set(port, state);
        }
      }
    }
    const unlisted = slice.filter((port) => !listed.has(port));
    if (chunk.complete) {
      if (chunk.closed !== unlisted.length) {
        problems.push(`complete chunk ${chunk.index}: ${listed.size} listed + ${chunk.closed} closed != ${slice.length} ports`);
      }
      for (const port of unlisted) decided.set(port, 'closed');
    } else {
      // Which ports the closed count means is not said; it cannot exceed
      // the unlisted ports that really are closed.
      const trulyClosed = unlisted.filter((port) => host.stateOf(port) === 'closed').length;
      if (chunk.closed > trulyClosed) {
        problems.push(`partial chunk ${chunk.index}: ${chunk.closed} closed, but only ${trulyClosed} of its unlisted ports are`);
      }
    }
    decidedCount += listed.size + chunk.closed;
  }
  return { decided, decidedCount, problems };
}

/** "port: got/expected" for every decided port that differs from the host's truth. */
export function wrongStates(scan: HostileScan, truth: (port: number) => PortState): string[] {
  const wrong = new Set(mismatches(scan.decided, truth));
  if (scan.summary.status === 'complete') {
    // The summary is what callers see; it must say the same.
    for (const w of mismatches(statesOf(scan.summary, scan.ports), truth)) wrong.add(w);
  }
  return [...wrong].sort((a, b) => Number.parseInt(a, 10) - Number.parseInt(b, 10));
}

/** A scan's outcome in one comparable object, so a failure shows all of it. */
export interface Verdict {
  status: ScanSummary['status'];
  undecided: number;
  wrongCount: number;
  /** The first wrong ports, "port: got/expected". */
  firstWrong: string[];
  problems: string[];
}

export function verdictOf(scan: HostileScan, truth: (port: number) => PortState): Verdict {
  const wrong = wrongStates(scan, truth);
  return {
    status: scan.summary.status,
    undecided: scan.ports.length - scan.decidedCount,
    wrongCount: wrong.length,
    firstWrong: wrong.slice(0, QUOTED_WRONG),
    problems: scan.problems,
  };
}

/** The verdict of a scan that gave every port its true state. */
export const EXACT: Verdict = Object.freeze({ status: 'complete', undecided: 0, wrongCount: 0, firstWrong: [], problems: [] }) as Verdict;

/** One line per scan for the test log: what it decided and how long it took. */
export function logScan(scan: HostileScan, truth: (port: number) => PortState): void {
  const { summary } = scan;
  const wrong = wrongStates(scan, truth).length;
  console.log(
    `[hostile] ${scan.label}: ${summary.status} in ${(scan.elapsedMs / 1000).toFixed(2)} s, ` +
      `${scan.decidedCount}/${scan.ports.length} decided, ${wrong} wrong ` +
      `(open ${summary.open.length}, filtered ${summary.filtered.length}, closed ${summary.closed})`,
  );
}

/**
 * The least time a token bucket that starts full needs to let through one
 * packet for each of `ports` whose true state `needs` one: a SYN for every
 * answered port, an RST for every closed one.
 */
export function limiterFloorMs(host: NetnsHost, ports: readonly number[], needs: (state: PortState) => boolean, limit: Limit): number {
  const packets = ports.filter((port) => needs(host.stateOf(port))).length;
  return (Math.max(0, packets - limit.burst) / limit.rate) * 1000;
}

/** Milliseconds an empty token bucket takes to fill up again. */
export function refillMs(limit: Limit): number {
  return Math.ceil((limit.burst / limit.rate) * 1000);
}

/**
 * Spaces repeated scans of one host: each call waits until `restMs` after
 * the end of the previous scan, marked with the returned function's
 * `ended()`, so every repetition meets the host in the same state (a full
 * token bucket) instead of what the last one left.
 */
export function spacer(restMs: number): { rest(): Promise<void>; ended(): void } {
  let lastEnded: number | undefined;
  return {
    async rest() {
      if (lastEnded !== undefined) await sleep(Math.max(0, lastEnded + restMs - performance.now()));
    },
    ended() {
      lastEnded = performance.now();
    },
  };
}

/**
 * One repetition of a limited host's case: waits for the limiter's bucket to
 * refill, scans, logs, and expects every port exact, all of them scanned and
 * the listeners open. Returns the scan for the case's own checks.
 */
export async function scanExactly(
  scanner: Scanner,
  host: NetnsHost,
  family: Family,
  request: Omit<ScanRequest, 'ip'>,
  label: string,
  spacing: ReturnType<typeof spacer>,
): Promise<HostileScan> {
  await spacing.rest();
  const scan = await scanHost(scanner, host, family, request, label);
  spacing.ended();
  const truth = (port: number) => host.stateOf(port);
  logScan(scan, truth);
  expect(verdictOf(scan, truth)).toEqual(EXACT);
  expect(scan.summary.portsScanned).toBe(request.ports.length);
  expect(scan.summary.open.map((p) => p.port)).toEqual(host.listeners.map((l) => l.port));
  return scan;
}

/** nmap's port specification for a list of ports, as ranges. */
export function nmapPortSpec(ports: readonly number[]): string {
  const sorted = [...ports].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

const nmapRuns = new Map<string, Promise<Map<number, PortState>>>();

/**
 * `nmap -sT -n -Pn` of `ports` on one address of `host`, run once per host,
 * address and port list and shared by the tests that ask again.
 */
export function nmapStatesOnce(host: NetnsHost, family: Family, ports: readonly number[]): Promise<Map<number, PortState>> {
  const spec = nmapPortSpec(ports);
  const key = `${host.name} ${host[family]} ${spec}`;
  let run = nmapRuns.get(key);
  if (run === undefined) {
    run = nmapScan(host[family], { ports: spec }).then((result) => result.states);
    nmapRuns.set(key, run);
  }
  return run;
}
