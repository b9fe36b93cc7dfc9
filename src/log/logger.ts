// The service's logger: pino JSON lines on stdout. One line per request and
// one per scan; use is logged because abuse must be traceable.
import { openSync } from 'node:fs';

import { type Logger, pino } from 'pino';

import { LogLines } from './log-lines.js';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** File descriptor or path; default stdout. */
  destination?: number | string;
}

/** Longest a line waits in the buffer before it is written. */
const FLUSH_INTERVAL_MS = 200;

export function createLogger(options: LoggerOptions = {}): Logger {
  // Batched: one write per 64 KiB or per 200 ms instead of one per line (a
  // write per request costs more than the request). Each batch is written
  // synchronously (pino's default), so nothing is in flight at exit, when
  // the held lines are written. A file is opened here, synchronously too.
  const fd = typeof options.destination === 'string' ? openSync(options.destination, 'a') : (options.destination ?? 1);
  const lines = new LogLines(pino.destination({ dest: fd, sync: true, minLength: 0, contentMode: 'buffer' }));
  setInterval(() => lines.flush(), FLUSH_INTERVAL_MS).unref();
  return pino({ name: 'selfscan', level: options.level ?? 'info' }, lines);
}
