// uSockets accepts on a listening socket until accept() fails; when the
// process is out of descriptors (EMFILE) the pending connection stays in
// the backlog, the socket stays readable, and the event loop spins at 100 %
// CPU, answering everyone else late. uWS offers no hook on accept, so this
// guard watches the process's open descriptors and stops listening while
// they run short (new connections are refused by the kernel at once), and
// listens again when they free up. Linux only (/proc); elsewhere it is off.
import { readdirSync, readFileSync } from 'node:fs';

import type { Logger } from 'pino';

/** Descriptors kept free below the limit; half as many again before listening resumes. */
const RESERVE_MIN = 16;
/** How often the open descriptors are counted. */
const CHECK_INTERVAL_MS = 100;

export interface ListenSwitch {
  /** Descriptors listening holds: a pause frees them, a resume takes them again. */
  readonly descriptors: number;
  /** Stops listening. */
  pause(): void;
  /** Listens again; rejects when it could not (then it is asked again on the next check). */
  resume(): Promise<void>;
}

/** The soft RLIMIT_NOFILE of this process, or null where /proc does not tell it. */
export function descriptorLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((row) => row.startsWith('Max open files'));
    const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
    return soft === undefined || soft === 'unlimited' ? null : Number(soft);
  } catch {
    return null;
  }
}

/** Free descriptors: 0 when not even the count can open one. */
function freeDescriptors(limit: number): number {
  try {
    return limit - readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

/**
 * Pauses `listening` when fewer than the reserve (1/32 of the limit, at
 * least 16) descriptors are free, resumes it when twice that many are
 * free besides those listening takes again (or a resume would run short at
 * once and the guard would pause and resume every check). Logs each pause,
 * each resume and a pause's first failed resume. Returns the function that
 * stops the guard; a no-op where the limit is unknown.
 */
export function guardDescriptors(listening: ListenSwitch, logger?: Logger, limit: number | null = descriptorLimit()): () => void {
  if (limit === null) return () => {};
  const reserve = Math.max(RESERVE_MIN, Math.floor(limit / 32));
  let state: 'listening' | 'paused' | 'resuming' = 'listening';
  let failedSincePause = false;
  let stopped = false;
  const timer = setInterval(() => {
    if (state === 'resuming') return;
    const free = freeDescriptors(limit);
    if (state === 'listening' && free < reserve) {
      state = 'paused';
      failedSincePause = false;
      timer.ref(); // with no listening socket, this timer may be all that keeps the process alive
      listening.pause();
      logger?.warn({ event: 'listening_paused', free_descriptors: free }, 'out of file descriptors: not accepting connections');
    } else if (state === 'paused' && free >= 2 * reserve + listening.descriptors) {
      state = 'resuming';
      listening.resume().then(
        () => {
          if (stopped) return listening.pause(); // stopped while it listened again: as if it had been first
          state = 'listening';
          timer.unref();
          logger?.warn({ event: 'listening_resumed', free_descriptors: free }, 'descriptors free again: accepting connections');
        },
        (error: Error) => {
          state = 'paused';
          if (!failedSincePause) logger?.error({ event: 'listen_failed', err: error }, 'could not listen again; retrying');
          failedSincePause = true;
        },
      );
    }
  }, CHECK_INTERVAL_MS);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
