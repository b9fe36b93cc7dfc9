// What `selfscan serve` hands back, in either mode, and what tests may give it instead of its own parts.

import type { HttpServerName } from '../http/http-front.js';
import type { Route } from '../http/routes.js';
import type { RateLimitStore } from '../limits/rate/rate-limit-store.js';
import type { Clock } from '../model/clock.js';
import type { Scanner, ScannerStats } from '../native/scanner.js';
import type { ResultStore } from '../scan/result-store.js';

/** What `startServer` makes itself unless given. */
export interface ServeDependencies {
  /** Default: the native scanner (loaded only then). */
  scanner?: Pick<Scanner, 'scan'> & { stats(): Pick<ScannerStats, 'budget'> & Partial<Pick<ScannerStats, 'poller' | 'engine'>> };
  /** Default: lmdb in the data dir. */
  store?: ResultStore;
  /** Default: in memory, kept in lmdb in the data dir. */
  rateLimits?: RateLimitStore;
  clock?: Clock;
}

export interface RunningServer {
  port: number;
  /** The HTTP server it answers on. */
  httpServer: HttpServerName;
  /** The port of `metrics.listen`, when metrics have one of their own. */
  metricsPort: number | null;
  /** Every route the HTTP app serves, by path. */
  routes: Readonly<Record<string, Route>>;
  /** Stops listening, lets scans in flight end (see drainSeconds), closes the store. */
  close(): Promise<void>;
}
