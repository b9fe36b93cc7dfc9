/**
 * Test fixture: a namespace host (netns-host.ts) behind a SYN proxy or
 * tarpit that answers for every port. Its real listeners (22 ssh, 80 http,
 * 8080 silent by default) are reached as usual; a SYN to any other TCP port
 * never reaches the host's kernel: the namespace's INPUT chain hands it to
 * an NFQUEUE queue, where decoy-responder/decoy-responder.c answers it with
 * a SYN-ACK of window 0 and no options and drops it. The peer's kernel
 * completes the handshake; its ACK, held for `resetDelayMs` (the middlebox's
 * way to the server behind it), then reaches the host's kernel, which has
 * no socket for it and resets the connection. So a decoy port accepts a
 * connection and resets it before sending a byte, where a real listener
 * keeps it: the ports are closed, whatever a connect() says.
 *
 * IPv4 and IPv6 alike. Requires root, the tools netns-host.ts needs and
 * libnetfilter-queue (the Debian package libnetfilter-queue-dev, which
 * `npm test` installs).
 */
import type { ChildProcess } from 'node:child_process';

import { nextCounters, nfqueueProgram, startInNamespace, stopProgram } from './fixture-program.js';
import { installRules } from './netns-commands.js';
import { createNetnsHost, type NetnsHost, type PortState, requireTools } from './netns-host.js';

export interface DecoyHostOptions {
  /** Which of netns-host's fixed listeners (22, 25, 80, 8080, 40022) are real; default 22, 80 and 8080. */
  listenerPorts?: number[];
  /**
   * How long the middlebox holds the peer's packets after its SYN (the
   * handshake's ACK above all) before the host's kernel sees them and
   * resets the connection; default {@link DEFAULT_RESET_DELAY_MS}.
   */
  resetDelayMs?: number;
}

/** What the responder counted so far. */
export interface DecoyStats {
  /** SYNs answered with a SYN-ACK (and dropped), per family. */
  answered: { ipv4: number; ipv6: number };
  /** Other packets to decoy ports, held for the reset delay and then let through. */
  delayed: number;
  /** Other packets let through at once (a reset delay of 0). */
  passed: number;
  /** SYN-ACKs the raw socket would not send (their SYNs are dropped all the same). */
  sendErrors: number;
  /** Queue messages lost to a full socket buffer: packets dropped unanswered. */
  overruns: number;
  /** Packets held right now, and the most held at once. */
  held: number;
  maxHeld: number;
}

/** A running decoy host: a {@link NetnsHost} whose every port but its listeners answers a handshake. */
export interface DecoyHost extends NetnsHost {
  /** Whether `port` is answered by the middlebox (every port without a real listener). */
  isDecoy(port: number): boolean;
  /** The responder's counters so far. */
  decoyStats(): Promise<DecoyStats>;
}

/** A path's worth of delay: long enough that a peer's connect() returns before the reset comes. */
export const DEFAULT_RESET_DELAY_MS = 2;
const DEFAULT_LISTENER_PORTS = [22, 80, 8080];
/** The NFQUEUE queue inside the host's namespace; queues are per namespace, so one number serves every decoy host. */
const QUEUE = 0xdec0;
/** The namespace's own chain, ahead of which INPUT sends every TCP packet not from loopback. */
const CHAIN = 'DECOY';

const LABEL = 'decoy responder';

/** Compiles the responder when its binary is missing or older than its sources. */
export function decoyResponderBinary(): string {
  return nfqueueProgram('decoy-responder/decoy-responder.c', 'decoy host');
}

/** The rules of the host's namespace for one family, as iptables argument lists: every TCP packet to a port without a listener goes to the responder. */
export function decoyRules(listenerPorts: readonly number[]): string[][] {
  return [
    ['-N', CHAIN],
    ...listenerPorts.map((port) => ['-A', CHAIN, '-p', 'tcp', '--dport', String(port), '-j', 'RETURN']),
    // No --queue-bypass: with the responder gone, the SYNs are dropped
    // (filtered), which no test can mistake for the decoy's answer.
    ['-A', CHAIN, '-p', 'tcp', '-j', 'NFQUEUE', '--queue-num', String(QUEUE)],
    ['-A', 'INPUT', '!', '-i', 'lo', '-p', 'tcp', '-j', CHAIN],
  ];
}

/**
 * Creates a namespace host with real listeners on `listenerPorts` and the
 * decoy answering for every other TCP port. Throws if not root, or if a tool
 * or libnetfilter-queue is missing.
 */
export async function createDecoyHost(options: DecoyHostOptions = {}): Promise<DecoyHost> {
  const resetDelayMs = options.resetDelayMs ?? DEFAULT_RESET_DELAY_MS;
  if (!(resetDelayMs >= 0 && resetDelayMs <= 10_000)) throw new RangeError(`resetDelayMs must be from 0 to 10000, got ${resetDelayMs}`);
  const tools = requireTools();
  const binary = decoyResponderBinary();
  const host = await createNetnsHost({ listenerPorts: options.listenerPorts ?? DEFAULT_LISTENER_PORTS, filtered: null });
  const listenerPorts = new Set(host.listeners.map((l) => l.port));

  let responder: ChildProcess | null = null;
  try {
    // Bound before the rules exist: a packet queued with no one reading is dropped.
    const command = [binary, '--queue', String(QUEUE), '--reset-delay-us', String(Math.round(resetDelayMs * 1000))];
    responder = await startInNamespace(tools.ip, host.name, command, LABEL);
    // Never removed: they go with the host's namespace.
    await installRules(tools, host.name, decoyRules([...listenerPorts]));
  } catch (error) {
    if (responder !== null) await stopProgram(responder, LABEL);
    await host.close();
    throw error;
  }
  const child = responder;

  const stateOf = (port: number): PortState => {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`port out of range: ${port}`);
    // A decoy port's handshake completes, but no service is there: closed.
    return listenerPorts.has(port) ? 'open' : 'closed';
  };
  let closing: Promise<void> | null = null;
  return {
    name: host.name,
    ipv4: host.ipv4,
    ipv6: host.ipv6,
    listeners: host.listeners,
    stateOf,
    truth: () => new Map([...listenerPorts].sort((a, b) => a - b).map((port) => [port, 'open'] as const)),
    pathStats: () => host.pathStats(),
    isDecoy: (port) => stateOf(port) === 'closed',
    decoyStats: () => nextCounters<DecoyStats>(child, LABEL),
    close() {
      closing ??= (async () => {
        await stopProgram(child, LABEL);
        await host.close();
      })();
      return closing;
    },
  };
}
