/**
 * Test fixture: a namespace host (netns-host.ts: its usual listeners and a
 * dropped range) with an on-path attacker beside it that answers every SYN
 * before the host does, with answers a correct scanner must ignore: SYN-ACKs
 * whose ack is one short, one long, random, or right for another probe (the
 * previous SYN seen, three times; the last earlier SYN to the same port,
 * an earlier scan's), an RST+ACK with a wrong ack, and a port unreachable
 * quoting the SYN with a wrong sequence number. A SYN reaches the host's
 * kernel only once answer-forger/answer-forger.c, fed by an NFQUEUE queue
 * in the namespace's raw PREROUTING chain, has sent its forgeries; the
 * host's real answer (its listeners', an RST, or silence for the dropped
 * range) follows. So the truth is netns-host's, whatever was forged.
 *
 * The namespace, its veth and its /30 are netns-host's own (`ssfx-<pid>-<n>`,
 * 198.18.0.0/16 slots), which keeps the host clear of every other fixture's;
 * NFQUEUE queue numbers are per namespace, so one number serves every
 * forger. IPv4 and IPv6. Requires root, the tools netns-host.ts needs and
 * libnetfilter-queue (the Debian package libnetfilter-queue-dev, which
 * `npm test` installs).
 */
import type { ChildProcess } from 'node:child_process';

import { nextCounters, nfqueueProgram, startInNamespace, stopProgram } from './fixture-program.js';
import { type InstalledRules, installRules } from './netns-commands.js';
import type { PortRange } from './netns-firewall.js';
import { createNetnsHost, type NetnsHost, requireTools } from './netns-host.js';

export interface ForgedAnswersHostOptions {
  /** The host's dropped (filtered) range; default netns-host's; null for none. */
  filtered?: PortRange | null;
  /** Seed of the forger's random acks and sequence numbers; default a random one. */
  seed?: number;
}

/** Per address family. */
export interface PerFamily {
  ipv4: number;
  ipv6: number;
}

/** What the forger counted so far. */
export interface ForgerCounts {
  /** Bare SYNs from outside the namespace, each answered with forgeries before the host saw it. */
  synsSeen: PerFamily;
  /** Forged answers sent (the raw sockets took them). */
  forgeriesSent: PerFamily;
  /** Forged answers sent, by kind (answer-forger.c lists them). */
  byKind: {
    ackSeq: number;
    ackSeqPlus2: number;
    ackRandom: number;
    rstAckWrong: number;
    previousProbe: number;
    earlierProbeSamePort: number;
    icmpWrongSeq: number;
  };
  /**
   * RSTs the scanner's machine sent back for forged SYN-ACKs (their
   * sequence number is the forged ack), dropped before the host saw them:
   * proof that forgeries reached the scanner's kernel.
   */
  echoesDropped: PerFamily;
  /** Forgeries built from another SYN that were skipped: there was none, or it was the same probe. */
  noOtherProbe: number;
  /** Queued packets let through to the host. */
  passed: number;
  /** Forgeries the raw sockets would not send. */
  sendErrors: number;
  /** Queue messages lost to a full socket buffer: packets dropped unseen. */
  overruns: number;
}

/** A running forged-answers host: a {@link NetnsHost} with the forger in front of it. */
export interface ForgedAnswersHost extends NetnsHost {
  /** The forger's counters so far. */
  forgerCounts(): Promise<ForgerCounts>;
  /** Stops the forger and closes the host; the forger's last counters, or null if it was gone already. Safe to call more than once. */
  stop(): Promise<ForgerCounts | null>;
}

/** The NFQUEUE queue inside the host's namespace. */
const QUEUE = 0xf0;
/** The namespace's own chain in its raw table, ahead of which PREROUTING sends every TCP packet not from loopback. */
const CHAIN = 'FORGER';
const LABEL = 'answer forger';

/** Compiles the forger when its binary is missing or older than its sources. */
export function answerForgerBinary(): string {
  return nfqueueProgram('answer-forger/answer-forger.c', 'forged-answers host');
}

/**
 * The rules of the host's namespace for one family, as iptables argument
 * lists: every bare SYN (to forge for) and every RST without ACK (to drop
 * the echoes of forged SYN-ACKs) goes to the forger, before the host's own
 * rules drop any.
 */
export function forgerRules(): string[][] {
  const queue = ['-j', 'NFQUEUE', '--queue-num', String(QUEUE)];
  return [
    ['-t', 'raw', '-N', CHAIN],
    // No --queue-bypass: with the forger gone, SYNs are dropped and every
    // port reads filtered, which no test can mistake for a forgery ignored.
    ['-t', 'raw', '-A', CHAIN, '-p', 'tcp', '--tcp-flags', 'SYN,ACK,RST,FIN', 'SYN', ...queue],
    ['-t', 'raw', '-A', CHAIN, '-p', 'tcp', '--tcp-flags', 'RST,ACK', 'RST', ...queue],
    ['-t', 'raw', '-A', 'PREROUTING', '!', '-i', 'lo', '-p', 'tcp', '-j', CHAIN],
  ];
}

/**
 * Creates a namespace host with netns-host's listeners and `filtered`
 * range and the forger in front of it. Throws if not root, or if a tool or
 * libnetfilter-queue is missing.
 */
export async function createForgedAnswersHost(options: ForgedAnswersHostOptions = {}): Promise<ForgedAnswersHost> {
  const tools = requireTools();
  const binary = answerForgerBinary();
  const host = await createNetnsHost(options.filtered === undefined ? {} : { filtered: options.filtered });

  let forger: ChildProcess | null = null;
  let rules: InstalledRules | null = null;
  try {
    // Bound before the rules exist: a packet queued with no one reading is dropped.
    const command = [binary, '--queue', String(QUEUE), ...(options.seed === undefined ? [] : ['--seed', String(options.seed)])];
    forger = await startInNamespace(tools.ip, host.name, command, LABEL);
    rules = await installRules(tools, host.name, forgerRules());
  } catch (error) {
    if (forger !== null) await stopProgram(forger, LABEL);
    await host.close();
    throw error;
  }
  const child = forger;
  const installed = rules;

  let stopping: Promise<ForgerCounts | null> | null = null;
  const stop = (): Promise<ForgerCounts | null> => {
    stopping ??= (async () => {
      // Out of the path first, so no packet waits on a forger about to go.
      await installed.remove();
      const counts = await stopProgram<ForgerCounts>(child, LABEL);
      await host.close();
      return counts;
    })();
    return stopping;
  };
  return {
    name: host.name,
    ipv4: host.ipv4,
    ipv6: host.ipv6,
    listeners: host.listeners,
    stateOf: (port, source) => host.stateOf(port, source),
    truth: (source) => host.truth(source),
    pathStats: () => host.pathStats(),
    forgerCounts: () => nextCounters<ForgerCounts>(child, LABEL),
    stop,
    close: async () => {
      await stop();
    },
  };
}
