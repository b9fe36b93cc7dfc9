/**
 * An internet-like path in front of a netns fixture host: a round trip,
 * jitter (so reordering), random and burst loss, and a bandwidth
 * bottleneck with a shallow queue. This kernel has no netem, so the delay
 * and the loss come from path-emulator/path-delay.c, bound to two NFQUEUE
 * queues.
 *
 * Where: a host with a path sits behind a router namespace of its own
 * (netns-host.ts wires it: root ⟷ veth ⟷ router ⟷ veth ⟷ host, forwarding
 * on in the router), and the emulator runs inside the router, fed by the
 * router's mangle table with the TCP, UDP and ICMP packets of its
 * host-facing veth end: POSTROUTING `-o` (towards the host) and PREROUTING
 * `-i` (from it); a UDP probe and its port unreachable take the path as a
 * SYN and its RST do (neighbour discovery does not: pathRules). So
 * both halves of the path are over before a packet reaches the root
 * namespace's interface. That matters to the SYN engine, which reads its
 * answers through an AF_PACKET socket: AF_PACKET taps a packet at the
 * device, before PREROUTING and tc ingress, so with the emulator's "from"
 * half in the root namespace (as it once was) the scanner saw answers a
 * half round trip early and saw the packets the path was meant to lose. On
 * a real internet path nothing on the scanner's host sees a packet before
 * the path has delivered it; with the router, nothing here does either.
 * The host's own filter rules (SYN limiter in INPUT, RST limiter in OUTPUT,
 * dropped ranges) act in the host's namespace, on the far side of the
 * path, as they would on a real server.
 *
 * Why not the host's mangle chains: the host sends its RSTs through one
 * per-CPU control socket, and holding them in its POSTROUTING for a far
 * path's delay fills that socket's send buffer (net.core.wmem_default,
 * global), so the host would stop answering; in the router, a packet has
 * left its sender's socket (IP receive orphans it before PREROUTING). And
 * why the emulator loses packets itself rather than `-m statistic -j
 * DROP`: burst loss needs its state anyway, and one place keeps the
 * decisions, the counters and the seed (where it once ran, in the root
 * namespace, netfilter dropping a locally sent SYN also failed connect()
 * with EPERM, where a real path loses it silently). The bottleneck is tbf
 * on both of the router's veth ends, each on the way out, after the
 * direction's delay: the host-facing end carries the "to" direction, the
 * root-facing end the "from" one.
 */
import { execFileSync } from 'node:child_process';

import { nextCounters, nfqueueProgram, startInNamespace, stopProgram } from './fixture-program.js';
import { type InstalledRules, installRules } from './netns-commands.js';

/** Gilbert–Elliott burst loss: per packet, a good and a bad state. */
export interface BurstLoss {
  /** Chance a packet in the good state moves the path to the bad one. */
  pGoodToBad: number;
  /** Chance a packet in the bad state moves it back. */
  pBadToGood: number;
  /** Share of packets lost in the bad state. */
  lossInBad: number;
}

/** A bandwidth bottleneck with a shallow queue (tbf on both of the router's veth ends). */
export interface Bottleneck {
  rateMbit: number;
  /** The longest a packet may wait in the bottleneck's queue. */
  latencyMs: number;
}

/** The path between the scanner and the host; each setting applies to both directions. */
export interface PathOptions {
  /** Round trip added, half each way. */
  rttMs: number;
  /** Uniform jitter, ± per packet and direction; at most half the round trip. Default 0. */
  jitterMs?: number;
  /** Share of packets lost at random in each direction. Default 0. */
  loss?: number;
  burst?: BurstLoss;
  bottleneck?: Bottleneck;
  /** Seed of the emulator's random numbers. Default 1. */
  seed?: number;
}

/** What the emulator counted, per direction ("to" the host, "from" it). */
export interface PathStats {
  to: { seen: number; lostRandom: number; lostBurst: number };
  from: { seen: number; lostRandom: number; lostBurst: number };
  /** Queue messages the kernel could not hand over (a full socket buffer): packets lost by the emulator itself. */
  overruns: number;
  held: number;
  maxHeld: number;
}

/** A running path; {@link RunningPath.close} undoes everything it set up. */
export interface RunningPath {
  /** The emulator's counters so far. */
  stats(): Promise<PathStats>;
  close(): Promise<PathStats | null>;
  /** Synchronous last-resort cleanup for a process exit hook. */
  closeSync(): void;
}

const LABEL = 'path emulator';

/** Compiles the emulator when its binary is missing or older than its sources. */
export function pathDelayBinary(): string {
  return nfqueueProgram('path-emulator/path-delay.c', LABEL);
}

/** The router between the root namespace and a host with a path (netns-host.ts creates it). */
export interface PathRouter {
  /** The router's network namespace. */
  namespace: string;
  /** Its veth end towards the host: the path's queue rules act here. */
  hostSide: string;
  /** Its veth end towards the root namespace. */
  rootSide: string;
}

/**
 * ICMPv6 the path carries: the errors (a UDP port's unreachable among
 * them) and echo. Neighbour discovery and MLD stay off it: they belong to
 * the router–host link, not to the path.
 */
const PATH_ICMPV6_TYPES = ['destination-unreachable', 'packet-too-big', 'time-exceeded', 'parameter-problem', 'echo-request', 'echo-reply'];

/**
 * The NFQUEUE rules of the router's mangle table for one family, as `-A`
 * argument lists: TCP, UDP and ICMP (for IPv6, PATH_ICMPV6_TYPES), both ways.
 */
export function pathRules(hostSide: string, queues: { to: number; from: number }, family: 4 | 6): string[][] {
  const matches = [
    ['-p', 'tcp'],
    ['-p', 'udp'],
    ...(family === 4 ? [['-p', 'icmp']] : PATH_ICMPV6_TYPES.map((type) => ['-p', 'ipv6-icmp', '--icmpv6-type', type])),
  ];
  return matches.flatMap((match) => [
    ['-t', 'mangle', '-A', 'POSTROUTING', '-o', hostSide, ...match, '-j', 'NFQUEUE', '--queue-num', String(queues.to)],
    ['-t', 'mangle', '-A', 'PREROUTING', '-i', hostSide, ...match, '-j', 'NFQUEUE', '--queue-num', String(queues.from)],
  ]);
}

/** `tc` arguments for a bottleneck on one veth end (run in its namespace). */
export function bottleneckQdisc(dev: string, bottleneck: Bottleneck): string[] {
  // The bucket holds what a 250 Hz tick lets through, at least a full frame.
  const burstBytes = Math.max(3000, Math.ceil((bottleneck.rateMbit * 1e6) / 8 / 250));
  return ['qdisc', 'add', 'dev', dev, 'root', 'tbf', 'rate', `${bottleneck.rateMbit}mbit`, 'burst', String(burstBytes), 'latency', `${bottleneck.latencyMs}ms`];
}

/** Checks a path's settings; throws RangeError naming the bad one. */
export function checkPath(path: PathOptions): void {
  const share = (name: string, value: number | undefined): void => {
    if (value !== undefined && !(value >= 0 && value <= 1)) throw new RangeError(`path.${name} must be a share from 0 to 1, got ${value}`);
  };
  if (!(path.rttMs >= 0 && path.rttMs <= 10_000)) throw new RangeError(`path.rttMs must be from 0 to 10000, got ${path.rttMs}`);
  const jitter = path.jitterMs ?? 0;
  if (!(jitter >= 0 && jitter <= path.rttMs / 2)) throw new RangeError(`path.jitterMs must be from 0 to half the round trip, got ${jitter}`);
  share('loss', path.loss);
  share('burst.pGoodToBad', path.burst?.pGoodToBad);
  share('burst.pBadToGood', path.burst?.pBadToGood);
  share('burst.lossInBad', path.burst?.lossInBad);
  if (path.bottleneck !== undefined && !(path.bottleneck.rateMbit > 0 && path.bottleneck.latencyMs > 0)) {
    throw new RangeError('path.bottleneck needs a positive rateMbit and latencyMs');
  }
}

function emulatorArgs(path: PathOptions, queues: { to: number; from: number }): string[] {
  const args = ['--queue-to', String(queues.to), '--queue-from', String(queues.from)];
  args.push('--delay-us', String(Math.round((path.rttMs * 1000) / 2)), '--jitter-us', String(Math.round((path.jitterMs ?? 0) * 1000)));
  if (path.loss !== undefined) args.push('--loss', String(path.loss));
  const burst = path.burst;
  if (burst !== undefined) args.push('--burst', `${burst.pGoodToBad},${burst.pBadToGood},${burst.lossInBad}`);
  args.push('--seed', String(path.seed ?? 1));
  return args;
}

/**
 * Starts the emulator inside `router`'s namespace on `queues` (queue
 * numbers are per namespace), then installs the router's queue rules (IPv4
 * and IPv6) and the bottleneck: packets queued before a listener is bound
 * would be dropped.
 */
export async function startPath(
  tools: { ip: string; iptables: string; ip6tables: string; tc: string },
  router: PathRouter,
  queues: { to: number; from: number },
  path: PathOptions,
): Promise<RunningPath> {
  checkPath(path);
  const child = await startInNamespace(tools.ip, router.namespace, [pathDelayBinary(), ...emulatorArgs(path, queues)], LABEL);
  let rules: InstalledRules | null = null;
  try {
    rules = await installRules(tools, router.namespace, (family) => pathRules(router.hostSide, queues, family));
    if (path.bottleneck !== undefined) {
      // Each direction's bottleneck on the way out of the router, after its delay: the qdiscs go with the links.
      for (const dev of [router.hostSide, router.rootSide]) {
        execFileSync(tools.ip, ['netns', 'exec', router.namespace, tools.tc, ...bottleneckQdisc(dev, path.bottleneck)], { stdio: 'pipe' });
      }
    }
  } catch (error) {
    await rules?.remove();
    child.kill('SIGKILL');
    throw error;
  }
  const installed = rules;

  let closing: Promise<PathStats | null> | null = null;
  return {
    stats: () => nextCounters<PathStats>(child, LABEL),
    close() {
      closing ??= (async () => {
        // Out of the path first, so no packet waits on an emulator about to go.
        await installed.remove();
        return stopProgram<PathStats>(child, LABEL);
      })();
      return closing;
    },
    // The emulator itself is killed by fixture-program.ts's exit hook.
    closeSync: () => installed.removeSync(),
  };
}
