// The one place where the parts are wired together: scanner, store, scan
// manager and HTTP interface, and their orderly shutdown.
import type { Logger } from 'pino';

import type { Config } from './config.js';
import { createHttpApp } from './http/app.js';
import { Admission } from './limits/admission.js';
import { openAsnLookup } from './limits/open-asn-lookup.js';
import { OptOutList } from './limits/opt-out-list.js';
import { MemoryRateLimitStore } from './limits/rate-limit-store.js';
import { createScanner } from './native/scanner.js';
import { type Clock, systemClock } from './scan/clock.js';
import { createPtrLookup } from './scan/ptr-lookup.js';
import { ScanManager } from './scan/scan-manager.js';
import { openLmdbStore } from './store/lmdb-store.js';
import { VERSION } from './version.js';
import { WebhookService } from './webhook/webhook-service.js';

export interface RunningServer {
  port: number;
  manager: ScanManager;
  /** Stops listening, lets scans in flight end (see drainSeconds), closes the store. */
  close(): Promise<void>;
}

/** Sockets a scan of each type needs at its peak: sizes the default concurrency. */
const SOCKETS_PER_SCAN = { fast: 32, deep: 512 };

export async function startServer(config: Config, logger: Logger, clock?: Clock): Promise<RunningServer> {
  const scanner = createScanner();
  const { budget } = scanner.stats();
  const concurrency = {
    fast: config.concurrency.fast ?? Math.max(1, Math.floor(budget / SOCKETS_PER_SCAN.fast)),
    deep: config.concurrency.deep ?? Math.max(1, Math.floor(budget / SOCKETS_PER_SCAN.deep)),
  };
  const store = await openLmdbStore(config.dataDir);
  const { manager } = await ScanManager.open({
    scanner,
    store,
    logger,
    clock,
    concurrency,
    budgetMs: { fast: config.scanBudgetSeconds.fast * 1000, deep: config.scanBudgetSeconds.deep * 1000 },
    lookupPtr: createPtrLookup(config.dns),
  });
  const asn = await openAsnLookup({ asnDatabase: config.asnDatabase, dataDir: config.dataDir });
  const optOut = await OptOutList.open(config.optOutFile, (reload) =>
    logger.info({ event: 'optout_loaded', file: config.optOutFile, ...reload }, 'opt-out list loaded'),
  );
  const admission = new Admission({
    limits: config.limits,
    store: new MemoryRateLimitStore(),
    optOut,
    asn,
    allowPrivateTargets: config.allowPrivateTargets,
    clock: clock ?? systemClock,
    logger,
  });
  const webhooks = await WebhookService.open({
    dataDir: config.dataDir,
    config: config.webhooks,
    allowPrivateCallbacks: config.allowPrivateCallbacks,
    store,
    isLive: (scanId) => manager.isLive(scanId),
    userAgent: `selfscan/${VERSION}`,
    logger,
  });
  manager.onFinished((record) => {
    webhooks.scanFinished(record).catch((error: unknown) => logger.error({ err: error, scanId: record.id }, 'could not queue webhooks'));
  });
  const http = createHttpApp({
    manager,
    webhooks,
    admission,
    trustProxy: config.trustProxy,
    logger,
    sseKeepAliveMs: config.sseKeepAliveSeconds * 1000,
  });
  const port = await http.listen(config.host, config.port);
  logger.info(
    { event: 'listening', host: config.host, port, concurrency, socketBudget: budget, allowPrivateTargets: config.allowPrivateTargets, asnSource: asn.source },
    `selfscan listening on ${config.host}:${port}`,
  );

  let closing: Promise<void> | undefined;
  return {
    port,
    manager,
    close: () =>
      (closing ??= (async () => {
        http.stopListening();
        await manager.drain(config.drainSeconds * 1000);
        await webhooks.close();
        optOut.close();
        await store.close();
        logger.info({ event: 'stopped' }, 'selfscan stopped');
      })()),
  };
}
