/**
 * Runs one of udp-services-host.ts's servers inside the host's namespace
 * and waits until it listens. Each runs in a mount namespace of its own
 * (`unshare --mount --propagation private`) with a directory of the
 * fixture bind-mounted over /run, so what rpcbind (its socket and lock),
 * inetd (its pid file) or any other server writes below /run never meets
 * the machine's own /run. Its stdout and stderr go to its log file; a
 * server still running when this process exits is killed
 * (fixture-program.ts's exit hook). A server is ready once its UDP sockets
 * show in the namespace's `ss -Huln`: these servers answer as soon as
 * they are bound, so no fixed sleep.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { trackForExit } from './fixture-program.js';
import { run } from './netns-commands.js';
import type { ServerCommand } from './udp-server-commands.js';

const READY_TIMEOUT_MS = 10_000;
const POLL_MS = 20;
const LOG_TAIL_CHARS = 4000;
/** Bind-mounts `$1` over /run, then becomes the server (so the child's pid is the server's and signals reach it). */
const WITH_PRIVATE_RUN = 'mount --bind "$1" /run && shift && exec "$@"';

/** Starts `command` in `namespace` with `runDir` as its /run, appending its output to `logFile`. */
export function startServer(ip: string, namespace: string, command: ServerCommand, runDir: string, logFile: string): ChildProcess {
  const log = openSync(logFile, 'a');
  try {
    const argv = ['netns', 'exec', namespace, 'unshare', '--mount', '--propagation', 'private', 'sh', '-c', WITH_PRIVATE_RUN, 'sh', runDir, ...command.argv];
    const child = spawn(ip, argv, { stdio: ['ignore', log, log], env: { ...process.env, ...command.env } });
    trackForExit(child);
    return child;
  } finally {
    closeSync(log);
  }
}

/**
 * Resolves once every one of `sockets` (`address:port`, IPv6 in brackets)
 * is a bound UDP socket in `namespace`; rejects, with the tail of
 * `logFile`, if one of `children` exits first or 10 s pass.
 */
export async function waitForUdpSockets(
  ip: string,
  namespace: string,
  sockets: readonly string[],
  children: readonly ChildProcess[],
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const gone = children.find((child) => child.exitCode !== null || child.signalCode !== null);
    if (gone !== undefined) throw new Error(notReady(`${gone.spawnargs.join(' ')} exited (${gone.exitCode ?? gone.signalCode})`, logFile));
    const bound = new Set((await run(ip, ['netns', 'exec', namespace, 'ss', '-Huln'])).split(/\s+/));
    const missing = sockets.filter((socket) => !bound.has(socket));
    if (missing.length === 0) return;
    if (Date.now() > deadline) throw new Error(notReady(`${missing.join(', ')} not bound after ${READY_TIMEOUT_MS} ms`, logFile));
    await sleep(POLL_MS);
  }
}

function notReady(reason: string, logFile: string): string {
  const log = readFileSync(logFile, 'utf8').slice(-LOG_TAIL_CHARS).trim();
  return `udp services host: ${reason}${log ? `; its log:\n${log}` : ''}`;
}
