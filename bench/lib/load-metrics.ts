// Measures of bench/load/load.ts: every API request's latency, tagged with its
// kind and start, and the server process's RSS, open file descriptors and
// CPU time, sampled from /proc.
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';

import { parseSamples, sampleValue } from '../../support/prometheus-text.js';

/**
 * What a timed request was; `MCP connect` is the whole MCP handshake (three
 * HTTP requests); `TCP connect` a caller's connection, from connect() to
 * its 'connect' event, which the first request's figure includes.
 */
export type RequestKind = 'POST' | 'GET poll' | 'v2 open' | 'MCP call' | 'MCP connect' | 'TCP connect';

/** The kinds in the headline latency figure: one HTTP request (or one MCP tool call) each. */
export const HEADLINE_KINDS: readonly RequestKind[] = ['POST', 'GET poll', 'v2 open', 'MCP call'];

export interface LatencySample {
  kind: RequestKind;
  /** performance.now() when the request started. */
  startedAt: number;
  ms: number;
  /** The caller's address, where the sample is to be matched with the server's log. */
  caller?: string;
}

/** Nearest-rank percentile of `values` (p from 0 to 1); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function summarise(values: readonly number[]): LatencySummary {
  const sorted = [...values].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted.at(-1) ?? NaN };
}

export class LatencyLog {
  private readonly samples: LatencySample[] = [];

  add(kind: RequestKind, startedAt: number, ms: number, caller?: string): void {
    this.samples.push(caller === undefined ? { kind, startedAt, ms } : { kind, startedAt, ms, caller });
  }

  all(): LatencySample[] {
    return [...this.samples];
  }

  /** Times `request` (whether it succeeds or throws) as one sample of `kind`. */
  async time<T>(kind: RequestKind, request: () => Promise<T>, caller?: string): Promise<T> {
    const startedAt = performance.now();
    try {
      return await request();
    } finally {
      this.add(kind, startedAt, performance.now() - startedAt, caller);
    }
  }

  /** Requests of `kinds` that started within [from, to]. */
  summary(kinds: readonly RequestKind[], from: number, to: number): LatencySummary {
    const values = this.samples.filter((s) => kinds.includes(s.kind) && s.startedAt >= from && s.startedAt <= to).map((s) => s.ms);
    return summarise(values);
  }
}

export interface ProcessPeaks {
  rssKiB: number;
  fds: number;
}

const CLOCK_TICKS_PER_SECOND = 100; // getconf CLK_TCK on Linux

/** Samples /proc/<pid> every `intervalMs`: VmRSS and the entries of fd/; peaks since the last reset. */
export class ProcessSampler {
  private peaks: ProcessPeaks = { rssKiB: 0, fds: 0 };
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    intervalMs = 250,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    try {
      const rssKiB = statusKiB(this.pid, 'VmRSS');
      const fds = readdirSync(`/proc/${this.pid}/fd`).length;
      this.peaks = { rssKiB: Math.max(this.peaks.rssKiB, rssKiB), fds: Math.max(this.peaks.fds, fds) };
    } catch {
      // the process is gone; the peaks so far stand
    }
  }

  /** Peaks since the last reset, including a sample taken now. */
  peak(): ProcessPeaks {
    this.sample();
    return { ...this.peaks };
  }

  resetPeak(): void {
    this.peaks = { rssKiB: 0, fds: 0 };
    this.sample();
  }

  /** The process's user + system CPU time so far, in seconds. */
  cpuSeconds(): number {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${this.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    } catch {
      return NaN;
    }
  }

  /** The kernel's own peak RSS of the process's whole life (VmHWM). */
  highWaterKiB(): number {
    try {
      return statusKiB(this.pid, 'VmHWM');
    } catch {
      return NaN;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

function statusKiB(pid: number, field: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
}

/** This process's CPU time so far, in seconds. */
export function ownCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * The kernel's count of connections dropped because a listen queue was full
 * (TcpExt ListenOverflows, system-wide): a dropped SYN costs its client a
 * 1 s retransmission.
 */
export function listenOverflows(): number {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('TcpExt:'));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    return Number(values[names.indexOf('ListenOverflows')] ?? NaN);
  } catch {
    return NaN;
  }
}

/** CPU seconds the whole machine has spent busy (all but idle and iowait), from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Percentiles of an event loop's delay, in ms. */
export interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
}

/** prom-client times the loop with a 10 ms timer (its default precision): its figures include that interval. */
const PROM_CLIENT_LOOP_SAMPLING_MS = 10;

/**
 * The server's event-loop delay (beyond prom-client's timer interval) since
 * its /metrics was last read, from prom-client's gauges there, which reset
 * their histogram on every read: read once at a phase's start to reset it,
 * once at its end for the phase.
 */
export async function serverLoopDelay(baseUrl: string): Promise<LoopDelay> {
  const samples = parseSamples(await metricsText(`${baseUrl}/metrics`));
  const gauge = (name: string): number =>
    samples.some((sample) => sample.name === name) ? Math.max(0, sampleValue(samples, name) * 1000 - PROM_CLIENT_LOOP_SAMPLING_MS) : NaN;
  return { p50: gauge('nodejs_eventloop_lag_p50_seconds'), p99: gauge('nodejs_eventloop_lag_p99_seconds'), max: gauge('nodejs_eventloop_lag_max_seconds') };
}

/** GET `url` on a connection of its own: a pooled one the server closed while idle between phases would fail it. */
function metricsText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => (response.statusCode === 200 ? resolve(text) : reject(new Error(`GET ${url} answered ${response.statusCode}`))));
      response.on('error', reject);
    }).on('error', reject);
  });
}
