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
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { PortRange } from './netns-firewall.js';
import { createNetnsHost, type NetnsHost, requireTools, run } from './netns-host.js';

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
const JUMP = ['PREROUTING', '!', '-i', 'lo', '-p', 'tcp', '-j', CHAIN];

const SOURCE = fileURLToPath(new URL('./answer-forger/answer-forger.c', import.meta.url));
const BINARY = fileURLToPath(new URL('../build/fixtures/answer-forger', import.meta.url));
const HEADER = '/usr/include/libnetfilter_queue/libnetfilter_queue.h';
const READY_TIMEOUT_MS = 10_000;
const COUNTS_TIMEOUT_MS = 5_000;
const MAX_STDERR_CHARS = 4096;

/** Compiles the forger when its binary is missing or older than its source. */
export function answerForgerBinary(): string {
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(SOURCE).mtimeMs) return BINARY;
  if (!existsSync(HEADER)) {
    throw new Error(`forged-answers host: ${HEADER} is missing: install the Debian package libnetfilter-queue-dev (npm test does)`);
  }
  mkdirSync(dirname(BINARY), { recursive: true });
  // Built aside and renamed, so a process starting it never finds half a binary.
  const building = `${BINARY}.${process.pid}`;
  execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-o', building, SOURCE, '-lnetfilter_queue', '-lnfnetlink'], { stdio: 'pipe' });
  renameSync(building, BINARY);
  return BINARY;
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
    ['-t', 'raw', '-A', ...JUMP],
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
  try {
    // Bound before the rules exist: a packet queued with no one reading is dropped.
    forger = await startForger(tools.ip, host.name, binary, options.seed);
    for (const iptables of [tools.iptables, tools.ip6tables]) {
      for (const rule of forgerRules()) await run(tools.ip, ['netns', 'exec', host.name, iptables, '-w', ...rule]);
    }
  } catch (error) {
    if (forger !== null) await stopForger(forger);
    await host.close();
    throw error;
  }
  const child = forger;
  trackForExit(child);

  let stopping: Promise<ForgerCounts | null> | null = null;
  const stop = (): Promise<ForgerCounts | null> => {
    stopping ??= (async () => {
      // Out of the path first, so no packet waits on a forger about to go.
      for (const iptables of [tools.iptables, tools.ip6tables]) {
        await run(tools.ip, ['netns', 'exec', host.name, iptables, '-w', '-t', 'raw', '-D', ...JUMP]).catch(() => undefined);
      }
      const counts = await stopForger(child);
      untrack(child);
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
    forgerCounts: () => nextCounts(child, () => child.kill('SIGUSR1')),
    stop,
    close: async () => {
      await stop();
    },
  };
}

async function startForger(ip: string, namespace: string, binary: string, seed: number | undefined): Promise<ChildProcess> {
  const args = ['netns', 'exec', namespace, binary, '--queue', String(QUEUE)];
  if (seed !== undefined) args.push('--seed', String(seed));
  // `ip netns exec` execs the forger, so the child is the forger itself;
  // its stdin stays open until this process ends, and so does it.
  const child = spawn(ip, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdout?.setEncoding('utf8');
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-MAX_STDERR_CHARS);
  });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    const onData = (chunk: string): void => {
      out += chunk;
      if (out.includes('READY\n')) finish();
    };
    const onExit = (code: number | null): void => finish(new Error(`answer forger exited (${code}) before it was ready: ${stderr.trim()}`));
    const onError = (err: Error): void => finish(new Error(`answer forger failed to start: ${err.message}`));
    const timer = setTimeout(() => finish(new Error(`answer forger: not ready after ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      if (error === undefined) return resolve();
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
  return child;
}

/** The next line of counters the forger prints once `ask` has asked for it. */
function nextCounts(child: ChildProcess, ask: () => void): Promise<ForgerCounts> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (chunk: string): void => {
      buffer += chunk;
      const line = buffer.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      cleanup();
      resolve(JSON.parse(line) as ForgerCounts);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`answer forger: no counters within ${COUNTS_TIMEOUT_MS} ms`));
    }, COUNTS_TIMEOUT_MS);
    const cleanup = (): void => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
    };
    child.stdout?.on('data', onData);
    ask();
  });
}

/** SIGTERM, then the counters the forger prints as it exits; null when it was gone already or printed none. */
async function stopForger(child: ChildProcess): Promise<ForgerCounts | null> {
  if (child.exitCode !== null || child.signalCode !== null) return null;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const counts = nextCounts(child, () => child.kill('SIGTERM')).catch(() => null);
  const timer = setTimeout(() => child.kill('SIGKILL'), COUNTS_TIMEOUT_MS);
  const last = await counts;
  await exited;
  clearTimeout(timer);
  return last;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function trackForExit(child: ChildProcess): void {
  running.add(child);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when stop() was never reached; the forger would also exit
  // on its own once its stdin closes with this process.
  process.on('exit', () => {
    for (const { pid, exitCode } of running) {
      if (pid === undefined || exitCode !== null) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

function untrack(child: ChildProcess): void {
  running.delete(child);
}
