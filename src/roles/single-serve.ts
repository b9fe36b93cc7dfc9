// `selfscan serve` without --redis: every role in one process, the composition root of the
// default deployment. Scans run on the native scanner through an in-memory
// queue and event bus; results, fingerprints of past scans, rate-limit
// state, webhooks owed and the signing key live in the data dir. Tests inject the scanner, store, rate limits or clock.
import type { Logger } from 'pino';

import { VERSION } from '../api/version.js';
import { type Config, scanBudgetsMs } from '../config/config.js';
import type { HealthCheck } from '../http/health.js';
import { LmdbCheckpoints } from '../lmdb/lmdb-checkpoints.js';
import { openLmdbFingerprints } from '../lmdb/lmdb-fingerprints.js';
import { LmdbOutbox } from '../lmdb/lmdb-outbox.js';
import { LmdbRateLimitStore } from '../lmdb/lmdb-rate-limit-store.js';
import { openLmdbStore } from '../lmdb/lmdb-store.js';
import { systemClock } from '../model/clock.js';
import { startExpirySweep } from '../scan/expiry-sweep.js';
import { createPtrLookup } from '../scan/ptr-lookup.js';
import { recoverUnfinished } from '../scan/scan-recovery.js';
import { openUdpScanner } from '../udp/open-udp-scanner.js';
import { SigningKey } from '../webhook/signing-key.js';
import { WebhookService } from '../webhook/webhook-service.js';
import { openApiRole } from './api-role.js';
import { factsStage, scanExposure } from './exposure-parts.js';
import { openLocalScans } from './local-scans.js';
import { openNodeMetrics } from './node-metrics.js';
import type { RunningServer, ServeDependencies } from './running-server.js';
import { openNativeScanner } from './scanner-engine.js';

/** Sockets a scan of each type needs at its peak: sizes the default concurrency. */
const SOCKETS_PER_SCAN = { fast: 32, deep: 512, udp: 32 };

/** The single process: every role, its state in the data dir. */
export async function startSingleServer(config: Config, logger: Logger, deps: ServeDependencies = {}): Promise<RunningServer> {
  const clock = deps.clock ?? systemClock;
  const scanner = deps.scanner ?? (await openNativeScanner(config.scanner, logger));
  const { budget, poller, engine = null } = scanner.stats();
  const concurrency = {
    fast: config.concurrency.fast ?? Math.max(1, Math.floor(budget / SOCKETS_PER_SCAN.fast)),
    deep: config.concurrency.deep ?? Math.max(1, Math.floor(budget / SOCKETS_PER_SCAN.deep)),
    udp: config.concurrency.udp ?? Math.max(1, Math.floor(budget / SOCKETS_PER_SCAN.udp)),
  };
  const nodeMetrics = openNodeMetrics(config, 'all', logger);
  const { metrics } = nodeMetrics;
  metrics.watchEngine(() => scanner.stats());
  const store = deps.store ?? (await openLmdbStore(config.dataDir));
  const checkpoints = await LmdbCheckpoints.open(config.dataDir);
  const fingerprints = await openLmdbFingerprints(config.dataDir, clock);
  // Retention 0 keeps none: those kept before it was set go now, not at their time.
  if (config.exposure.fingerprintDays === 0) await fingerprints.deleteExpired(Number.POSITIVE_INFINITY);
  const stopSweep = startExpirySweep({ results: store, fingerprints }, clock, logger);
  const key = await SigningKey.open(config.dataDir);
  const { allowPrivateCallbacks } = config;
  const attempt = { key, userAgent: `selfscan/${VERSION}`, allowPrivateCallbacks, timeoutSeconds: config.webhooks.timeoutSeconds, logger, metrics };
  const outbox = await LmdbOutbox.open(config.dataDir, { attempt, retryDelaysSeconds: config.webhooks.retryDelaysSeconds });
  const webhooks = await WebhookService.open({ outbox, key, store, allowPrivateCallbacks, logger });
  const scans = openLocalScans({
    scanner,
    udpScanner: await openUdpScanner(config.scanner.udpSourceAddresses, logger),
    store,
    clock,
    logger,
    concurrency,
    budgetMs: scanBudgetsMs(config),
    lookupPtr: createPtrLookup(config.dns),
    checkpoints,
    webhooks,
    examine: factsStage(config),
    exposure: scanExposure(config, fingerprints, logger),
    metrics,
  });
  // Before requests can start scans (webhooks hear of the ends of scans taken up).
  await recoverUnfinished(store, checkpoints, (record) => scans.resume(record), logger);
  const health: HealthCheck = async () => ({
    ok: true,
    role: 'all',
    region: null,
    redis: null,
    jobsInHand: scans.inFlight(),
    engine,
    http_server: nodeMetrics.front.name,
  });
  const ownRateLimits = deps.rateLimits === undefined ? await LmdbRateLimitStore.open(config.dataDir, logger) : undefined;
  const rateLimits = deps.rateLimits ?? ownRateLimits!;
  const api = await openApiRole(config, {
    scans: scans.service,
    webhooks,
    rateLimits,
    health,
    clock,
    logger,
    metrics,
    mounted: nodeMetrics.mounted,
    front: nodeMetrics.front,
  });
  const port = await api.http.listen(config.host, config.port);
  const metricsPort = await nodeMetrics.listen(logger);
  logger.info(
    {
      event: 'listening',
      host: config.host,
      port,
      http_server: nodeMetrics.front.name,
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
    httpServer: nodeMetrics.front.name,
    metricsPort,
    routes: api.http.routes,
    close: () =>
      (closing ??= (async () => {
        api.http.stopListening();
        nodeMetrics.stop();
        await scans.drain(config.drainSeconds * 1000);
        stopSweep();
        api.close();
        await webhooks.close();
        await checkpoints.close();
        await fingerprints.close();
        await ownRateLimits?.close();
        await store.close();
        logger.info({ event: 'stopped' }, 'selfscan stopped');
      })()),
  };
}
