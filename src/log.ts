// The service's logger: pino JSON lines on stdout. One line per request and
// one per scan; use is logged because abuse must be traceable.
import { pino, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** File descriptor or path; default stdout. */
  destination?: number | string;
}

/** Longest a line waits in the buffer before it is written. */
const FLUSH_INTERVAL_MS = 200;

export function createLogger(options: LoggerOptions = {}): Logger {
  // Buffered: one write per 4 KiB or per 200 ms instead of one per line (a
  // write per request costs more than the request). pino flushes the buffer
  // when the process exits.
  const stream = pino.destination({ dest: options.destination ?? 1, sync: false, minLength: 4096 });
  setInterval(() => stream.flush(), FLUSH_INTERVAL_MS).unref();
  return pino({ name: 'selfscan', level: options.level ?? process.env.SELFSCAN_LOG_LEVEL ?? 'info' }, stream);
}
