// `selfscan serve`: every role in one process, the composition root of the
// default deployment. Scans run on the native scanner through an in-memory
// queue and event bus; results, rate-limit state, webhooks owed and the
// signing key live in the data dir. Tests inject the scanner, store, rate limits or clock.
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import type { HealthCheck } from '../http/health.js';
import type { Route } from '../http/routes.js';
import { LmdbRateLimitStore } from '../limits/lmdb-rate-limit-store.js';
import type { RateLimitStore } from '../limits/rate-limit-store.js';
import { type Clock, systemClock } from '../model/clock.js';
import type { Scanner, ScannerStats } from '../native/scanner.js';
import { startExpirySweep } from '../scan/expiry-sweep.js';
import { openLocalScans } from '../scan/local-scans.js';
import { createPtrLookup } from '../scan/ptr-lookup.js';
import { recoverUnfinished } from '../scan/scan-recovery.js';
import type { ScanService } from '../scan/scan-service.js';
import { LmdbCheckpoints } from '../store/lmdb-checkpoints.js';
import { openLmdbStore } from '../store/lmdb-store.js';
import type { ResultStore } from '../store/result-store.js';
import { VERSION } from '../version.js';
import { LmdbOutbox } from '../webhook/lmdb-outbox.js';
import { SigningKey } from '../webhook/signing-key.js';
import { WebhookService } from '../webhook/webhook-service.js';
import { openApiRole } from './api-role.js';

/** What `startServer` makes itself unless given. */
export interface ServeDependencies {
  /** Default: the native scanner (loaded only then). */
  scanner?: Pick<Scanner, 'scan'> & { stats(): Pick<ScannerStats, 'budget'> & Partial<Pick<ScannerStats, 'poller'>> };
  /** Default: lmdb in the data dir. */
  store?: ResultStore;
  /** Default: in memory, kept in lmdb in the data dir. */
  rateLimits?: RateLimitStore;
  clock?: Clock;
}

export interface RunningServer {
  port: number;
  /** The scans of a single process; null on a cluster node. */
  service: ScanService | null;
  /** Every route the HTTP app serves, by path. */
  routes: Readonly<Record<string, Route>>;
  /** Stops listening, lets scans in flight end (see drainSeconds), closes the store. */
  close(): Promise<void>;
}

/** Sockets a scan of each type needs at its peak: sizes the default concurrency. */
const SOCKETS_PER_SCAN = { fast: 32, deep: 512 };
/** How often expired results are deleted from the store. */
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export async function startServer(config: Config, logger: Logger, deps: ServeDependencies = {}): Promise<RunningServer> {
  if (config.redisUrl !== undefined) return (await import('./cluster-serve.js')).startClusterServer(config, logger, deps);
  const clock = deps.clock ?? systemClock;
  const scanner = deps.scanner ?? (await import('../native/scanner.js')).createScanner({ poller: config.scanner.poller });
  const { budget, poller } = scanner.stats();
  const concurrency = {
    fast: config.concurrency.fast ?? Math.max(1, Math.floor(budget / SOCKETS_PER_SCAN.fast)),
    deep: config.concurrency.deep ?? Math.max(1, Math.floor(budget / SOCKETS_PER_SCAN.deep)),
  };
  const store = deps.store ?? (await openLmdbStore(config.dataDir));
  const checkpoints = await LmdbCheckpoints.open(config.dataDir);
  const stopSweep = startExpirySweep(store, clock, logger, SWEEP_INTERVAL_MS);
  const scans = openLocalScans({
    scanner,
    store,
    clock,
    logger,
    concurrency,
    budgetMs: { fast: config.scanBudgetSeconds.fast * 1000, deep: config.scanBudgetSeconds.deep * 1000 },
    lookupPtr: createPtrLookup(config.dns),
    checkpoints,
  });
  const webhooks = await WebhookService.open({
    outbox: await LmdbOutbox.open(config.dataDir),
    key: await SigningKey.open(config.dataDir),
    config: config.webhooks,
    allowPrivateCallbacks: config.allowPrivateCallbacks,
    store,
    isLive: (scanId) => scans.service.isLive(scanId),
    userAgent: `selfscan/${VERSION}`,
    logger,
  });
  scans.events.onEnded(({ record }) => {
    webhooks.scanFinished(record).catch((error: unknown) => logger.error({ err: error, scanId: record.id }, 'could not queue webhooks'));
  });
  // Once webhooks hear of ends (a scan taken up may end at once), before requests can start scans.
  await recoverUnfinished(store, checkpoints, (record) => scans.service.resume(record), logger);
  const health: HealthCheck = async () => ({ ok: true, role: 'all', region: null, redis: null, jobsInHand: scans.service.inFlight });
  const ownRateLimits = deps.rateLimits === undefined ? await LmdbRateLimitStore.open(config.dataDir, logger) : undefined;
  const rateLimits = deps.rateLimits ?? ownRateLimits!;
  const api = await openApiRole(config, { scans: scans.service, webhooks, rateLimits, health, clock, logger });
  const port = await api.http.listen(config.host, config.port);
  logger.info(
    {
      event: 'listening',
      host: config.host,
      port,
      concurrency,
      socketBudget: budget,
      poller,
      allowPrivateTargets: config.allowPrivateTargets,
      asnSource: api.asnSource,
    },
    `selfscan listening on ${config.host}:${port}`,
  );

  let closing: Promise<void> | undefined;
  return {
    port,
    service: scans.service,
    routes: api.http.routes,
    close: () =>
      (closing ??= (async () => {
        api.http.stopListening();
        await scans.drain(config.drainSeconds * 1000);
        stopSweep();
        api.close();
        await webhooks.close();
        await checkpoints.close();
        await ownRateLimits?.close();
        await store.close();
        logger.info({ event: 'stopped' }, 'selfscan stopped');
      })()),
  };
}
