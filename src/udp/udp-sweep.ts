// The udp scan's sweep: every probe's first request to its port at once,
// then rounds spaced by the path's round trip that re-send to the ports
// still silent, until each port has answered (open), drawn an ICMP port
// unreachable (closed) or been judged filtered by silence-judge.ts, which
// is where the target's ICMP rate limit is dealt with. An open port is then
// sent the probe's other requests (once more if unanswered) for its facts.
// With several source addresses of the target's family, each sweeps its
// share of the probes at once, its own rounds and canary drawing on its own
// ICMP budget at the target.
// A TypeScript stage over node:dgram rather than a third engine in the
// addon: it sends a few dozen datagrams a round to one address, so the
// event loop's cost is small, and the kernel's ICMP pacing, not our send
// rate, sets how long it takes (bench/udp measures both).
import type { UdpProbe, UdpReading, UdpService } from './probes/udp-probe.js';
import { DEFAULT_SILENCE_JUDGE, SilenceJudge, type SilenceJudgeOptions } from './silence-judge.js';
import { UdpPortSocket } from './udp-port-socket.js';

export type UdpPortState = 'open' | 'closed' | 'filtered';

/** What the sweep learned of one probed port. */
export interface UdpPortOutcome {
  port: number;
  service: UdpService;
  state: UdpPortState;
  /** Every datagram sent to the port and received from it, retries included. */
  bytesSent: number;
  bytesReceived: number;
  /** Received ÷ sent, for an open port; null when it never answered. */
  amplification: number | null;
  /** What each answered request showed, in the probe's order of requests. */
  readings: Array<UdpReading & { request: string }>;
}

export interface UdpSweepResult {
  ports: UdpPortOutcome[];
  rounds: number;
  durationMs: number;
  /** The first round trip measured, ms; null when nothing answered. */
  rttMs: number | null;
  /** The ports settled as filtered by the judge's canary rounds, a quiet spell or the time limit. */
  settledBy: 'answers' | 'judge' | 'time limit';
}

export interface UdpSweepOptions {
  /** The sweep's longest time; ports still silent then are filtered. Default 30 s. */
  maxMs?: number;
  judge?: SilenceJudgeOptions;
  signal?: AbortSignal;
  /** The port guessed closed that serves as canary until a probed port is known closed. Default: one of 33434–33523. */
  canaryPort?: number;
  /**
   * Addresses of this host to send from. Those of the target's family
   * share the probes out (each sends to its own ports, with a canary of
   * its own): the target rate-limits its ICMP per address it answers, so
   * each brings its own burst. None of the family: the kernel's choice.
   */
  sourceAddresses?: readonly string[];
}

/** Before any round trip is measured; an internet path's is well under it. */
const FIRST_ROUND_MS = 250;
const MIN_ROUND_MS = 50;
const MAX_ROUND_MS = 1_500;
/**
 * Between the silent ports' datagrams and the canary's: the canary must
 * reach the target after them, and a burst sent back to back may be
 * reordered on the way (a router's parallel queues; the tests' path
 * emulator stamps a batch it reads at once with one time). Short against
 * the target's ICMP interval (100 ms at the least), so a token it regains
 * in between is rare, and two such rounds in a row rarer still.
 */
const CANARY_GAP_MS = 2;
/** An empty datagram: the least a closed port can refuse. */
const CANARY_BYTES = new Uint8Array(0);
/** Where the first canary is guessed (traceroute's UDP ports, closed on nearly every host). */
export const TRACEROUTE_PORTS = { first: 33_434, count: 90 } as const;

/** One probed port as the sweep goes. */
interface Track {
  probe: UdpProbe;
  socket: UdpPortSocket;
  state: 'pending' | 'open' | 'closed';
  /** Readings by request index. */
  readings: Map<number, UdpReading>;
  /** When the other requests were first sent; null until the port answered. */
  followUpAt: number | null;
  followUpRetried: boolean;
}

/** Sweeps `probes` against `host` (an IPv4 or IPv6 address), from each of its family's source addresses at once. */
export async function udpSweep(host: string, probes: readonly UdpProbe[], options: UdpSweepOptions = {}): Promise<UdpSweepResult> {
  const startedAt = performance.now();
  const sources = (options.sourceAddresses ?? []).filter((address) => address.includes(':') === host.includes(':'));
  if (sources.length <= 1) return sweepFrom(host, probes, options, sources[0]);
  const shares = sources.map((source, i) => ({ source, probes: probes.filter((_, index) => index % sources.length === i) }));
  const results = await Promise.all(shares.filter((share) => share.probes.length > 0).map((share) => sweepFrom(host, share.probes, options, share.source)));
  return mergeSweeps(probes, results, performance.now() - startedAt);
}

async function sweepFrom(host: string, probes: readonly UdpProbe[], options: UdpSweepOptions, localAddress: string | undefined): Promise<UdpSweepResult> {
  const sweep = new Sweep(host, probes, options, localAddress);
  try {
    return await sweep.run();
  } finally {
    sweep.close();
  }
}

const SETTLED_ORDER: readonly UdpSweepResult['settledBy'][] = ['answers', 'judge', 'time limit'];

/** One result of the sweeps of each source's share: ports in `probes`' order, settled by the last way any share settled. */
function mergeSweeps(probes: readonly UdpProbe[], results: readonly UdpSweepResult[], durationMs: number): UdpSweepResult {
  const byPort = new Map(results.flatMap((result) => result.ports.map((port) => [port.port, port] as const)));
  const rtts = results.map((result) => result.rttMs).filter((rtt) => rtt !== null);
  return {
    ports: probes.map((probe) => byPort.get(probe.port)!),
    rounds: Math.max(...results.map((result) => result.rounds)),
    durationMs,
    rttMs: rtts.length > 0 ? Math.min(...rtts) : null,
    settledBy: SETTLED_ORDER[Math.max(...results.map((result) => SETTLED_ORDER.indexOf(result.settledBy)))]!,
  };
}

class Sweep {
  private readonly tracks: Track[] = [];
  private readonly startedAt = performance.now();
  private firstSendAt = 0;
  private rttMs: number | null = null;
  private round = 0;
  private pendingRefused = 0;
  private canaryRefused = false;
  /** The silent ports are judged filtered: no more rounds for them. */
  private settled = false;
  private randomCanary: UdpPortSocket | null = null;
  private canary: UdpPortSocket | Track | null = null;
  private wake: (() => void) | null = null;
  private readonly maxMs: number;

  constructor(
    private readonly host: string,
    private readonly probes: readonly UdpProbe[],
    private readonly options: UdpSweepOptions,
    /** The address this share of the sweep sends from; the kernel's choice when undefined. */
    private readonly localAddress: string | undefined,
  ) {
    this.maxMs = options.maxMs ?? 30_000;
  }

  async run(): Promise<UdpSweepResult> {
    const { signal } = this.options;
    signal?.throwIfAborted();
    for (const probe of this.probes) this.tracks.push(await this.openTrack(probe));
    this.randomCanary = await this.openRandomCanary();
    const judge = new SilenceJudge(this.startedAt, this.options.judge ?? DEFAULT_SILENCE_JUDGE);
    let settledBy: UdpSweepResult['settledBy'] = 'answers';
    for (;;) {
      signal?.throwIfAborted();
      await this.sendRound();
      await this.waitUntil(performance.now() + this.roundMs(), () => this.finished());
      signal?.throwIfAborted();
      if (this.finished()) break;
      const now = performance.now();
      if (now - this.startedAt >= this.maxMs) {
        settledBy = 'time limit';
        break;
      }
      if (!this.settled && this.pending().length > 0) {
        this.settled = judge.endRound({ at: now, pendingRefused: this.pendingRefused, canaryRefused: this.canaryRefused });
        if (this.settled) settledBy = 'judge';
      }
    }
    // Trailing datagrams of a many-datagram answer (memcached's frames, a monlist) count as received.
    if (this.tracks.some((track) => track.state === 'open')) await this.waitUntil(performance.now() + Math.min(this.roundMs(), 100), () => false);
    return {
      ports: this.tracks.map((track) => outcomeOf(track)),
      rounds: this.round,
      durationMs: performance.now() - this.startedAt,
      rttMs: this.rttMs,
      settledBy,
    };
  }

  close(): void {
    for (const track of this.tracks) track.socket.close();
    this.randomCanary?.close();
  }

  private async openTrack(probe: UdpProbe): Promise<Track> {
    const track: Track = {
      probe,
      socket: undefined as unknown as UdpPortSocket,
      state: 'pending',
      readings: new Map(),
      followUpAt: null,
      followUpRetried: false,
    };
    track.socket = await UdpPortSocket.open(
      this.host,
      probe.port,
      { reply: (data) => this.onReply(track, data), refused: () => this.onRefused(track) },
      probe.answersFromOtherPort === true,
      this.localAddress,
    );
    return track;
  }

  private async openRandomCanary(): Promise<UdpPortSocket> {
    const probed = new Set(this.probes.map((probe) => probe.port));
    let port = this.options.canaryPort ?? TRACEROUTE_PORTS.first + Math.floor(Math.random() * TRACEROUTE_PORTS.count);
    while (probed.has(port)) port++;
    const socket = await UdpPortSocket.open(
      this.host,
      port,
      {
        // A canary that answers is no canary; the rounds then wait for a probed port known closed.
        reply: () => {
          if (this.randomCanary === socket) this.randomCanary = null;
        },
        refused: () => {
          if (this.canary === socket) this.canaryRefused = true;
          this.sampleRtt();
          this.wakeUp();
        },
      },
      false,
      this.localAddress,
    );
    return socket;
  }

  private onReply(track: Track, data: Buffer): void {
    this.sampleRtt();
    track.state = 'open';
    const found = readingOf(track, data);
    if (found !== null && !track.readings.has(found.request)) track.readings.set(found.request, found.reading);
    if (track.followUpAt === null) {
      track.followUpAt = performance.now();
      this.sendFollowUps(track);
    }
    this.wakeUp();
  }

  private onRefused(track: Track): void {
    this.sampleRtt();
    if (track.state === 'pending') {
      track.state = 'closed';
      this.pendingRefused++;
    } else if (this.canary === track) {
      this.canaryRefused = true;
    }
    this.wakeUp();
  }

  /** Every silent port's first request, then the canary's datagram just behind them; and the open ports' retries. */
  private async sendRound(): Promise<void> {
    this.round++;
    if (this.round === 1) this.firstSendAt = performance.now();
    this.pendingRefused = 0;
    this.canaryRefused = false;
    const now = performance.now();
    for (const track of this.tracks) {
      if (track.followUpAt !== null && !track.followUpRetried && now - track.followUpAt >= this.followUpMs()) {
        track.followUpRetried = true;
        this.sendFollowUps(track);
      }
    }
    if (this.settled || this.pending().length === 0) return;
    for (const track of this.pending()) track.socket.send(track.probe.requests[0]!.bytes);
    await new Promise((resolve) => setTimeout(resolve, CANARY_GAP_MS));
    this.canary = this.tracks.find((track) => track.state === 'closed') ?? this.randomCanary;
    if (this.canary instanceof UdpPortSocket) this.canary.send(CANARY_BYTES);
    else this.canary?.socket.send(this.canary.probe.requests[0]!.bytes);
  }

  /** The requests after the first that have no reading yet. */
  private sendFollowUps(track: Track): void {
    track.probe.requests.forEach((request, index) => {
      if (index > 0 && !track.readings.has(index)) track.socket.send(request.bytes);
    });
  }

  private pending(): Track[] {
    return this.tracks.filter((track) => track.state === 'pending');
  }

  /**
   * Every port settled: closed, judged filtered, or open with each request
   * answered or given the time of its retry.
   */
  private finished(): boolean {
    const now = performance.now();
    return this.tracks.every((track) => {
      if (track.state === 'pending') return this.settled;
      if (track.state === 'closed') return true;
      return track.readings.size === track.probe.requests.length || now - track.followUpAt! >= 2 * this.followUpMs();
    });
  }

  private roundMs(): number {
    if (this.rttMs === null) return FIRST_ROUND_MS;
    return Math.min(MAX_ROUND_MS, Math.max(MIN_ROUND_MS, 2 * this.rttMs + 10));
  }

  /** How long an open port's other requests get before their retry (a recursive DNS answer takes the resolver's own trips). */
  private followUpMs(): number {
    return Math.max(300, 3 * (this.rttMs ?? FIRST_ROUND_MS));
  }

  /** The first round's answers time the path. */
  private sampleRtt(): void {
    if (this.rttMs === null && this.round === 1) this.rttMs = performance.now() - this.firstSendAt;
  }

  private wakeUp(): void {
    this.wake?.();
  }

  /** Resolves at `deadline`, on abort, or sooner once `done()` holds after an event. */
  private waitUntil(deadline: number, done: () => boolean): Promise<void> {
    const { signal } = this.options;
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(finish, Math.max(0, deadline - performance.now()));
      this.wake = () => {
        if (done()) finish();
      };
      signal?.addEventListener('abort', finish, { once: true });
    });
  }
}

/** Which request `data` answers and what it showed: the first request whose reader recognises it. */
function readingOf(track: Track, data: Buffer): { request: number; reading: UdpReading } | null {
  const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  for (let request = 0; request < track.probe.requests.length; request++) {
    const reading = track.probe.read(request, bytes);
    if (reading !== null) return { request, reading };
  }
  return null;
}

function outcomeOf(track: Track): UdpPortOutcome {
  const { probe, socket } = track;
  const state: UdpPortState = track.state === 'pending' ? 'filtered' : track.state;
  return {
    port: probe.port,
    service: probe.service,
    state,
    bytesSent: socket.bytesSent,
    bytesReceived: socket.bytesReceived,
    amplification: state === 'open' && socket.bytesSent > 0 ? socket.bytesReceived / socket.bytesSent : null,
    readings: [...track.readings.entries()].sort(([a], [b]) => a - b).map(([request, reading]) => ({ request: probe.requests[request]!.name, ...reading })),
  };
}
