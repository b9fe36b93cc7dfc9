// The service's logger: pino JSON lines on stdout. One line per request and
// one per scan; use is logged because abuse must be traceable.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level = process.env.SELFSCAN_LOG_LEVEL ?? 'info'): Logger {
  return pino({ name: 'selfscan', level });
}
