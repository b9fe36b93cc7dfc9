// The API role: the interfaces callers use (REST, SSE, MCP, webhooks) and
// the abuse controls in front of them, over a scan service. It never loads
// the native scanner, so an API-only process can run where scans do not.
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import { createHttpApp, type HttpApp } from '../http/app.js';
import { Admission } from '../limits/admission.js';
import { openAsnLookup } from '../limits/open-asn-lookup.js';
import { OptOutList } from '../limits/opt-out-list.js';
import type { RateLimitStore } from '../limits/rate-limit-store.js';
import { mcpRoute } from '../mcp/mcp-endpoint.js';
import type { Clock } from '../model/clock.js';
import type { ScanEvents } from '../scan/scan-events.js';
import type { ScanService } from '../scan/scan-service.js';
import type { ResultStore } from '../store/result-store.js';
import { VERSION } from '../version.js';
import type { Outbox } from '../webhook/outbox.js';
import type { SigningKey } from '../webhook/signing-key.js';
import { WebhookService } from '../webhook/webhook-service.js';

export interface ApiRoleDependencies {
  service: ScanService;
  events: ScanEvents;
  store: ResultStore;
  rateLimits: RateLimitStore;
  outbox: Outbox;
  signingKey: SigningKey;
  clock: Clock;
  logger: Logger;
}

export interface ApiRole {
  http: HttpApp;
  /** Where ASN data came from, for the start-up log line. */
  asnSource: string;
  /** Stops webhook sending and the opt-out watcher (after the HTTP side stopped). */
  close(): Promise<void>;
}

export async function openApiRole(config: Config, deps: ApiRoleDependencies): Promise<ApiRole> {
  const { service, events, logger } = deps;
  const asn = await openAsnLookup({ asnDatabase: config.asnDatabase, dataDir: config.dataDir });
  const optOut = await OptOutList.open(config.optOutFile, (reload) =>
    logger.info({ event: 'optout_loaded', file: config.optOutFile, ...reload }, 'opt-out list loaded'),
  );
  const admission = new Admission({
    limits: config.limits,
    store: deps.rateLimits,
    optOut,
    asn,
    allowPrivateTargets: config.allowPrivateTargets,
    clock: deps.clock,
    logger,
  });
  const webhooks = await WebhookService.open({
    outbox: deps.outbox,
    key: deps.signingKey,
    config: config.webhooks,
    allowPrivateCallbacks: config.allowPrivateCallbacks,
    store: deps.store,
    isLive: (scanId) => service.isLive(scanId),
    userAgent: `selfscan/${VERSION}`,
    logger,
  });
  events.onEnded(({ record }) => {
    webhooks.scanFinished(record).catch((error: unknown) => logger.error({ err: error, scanId: record.id }, 'could not queue webhooks'));
  });
  const http = createHttpApp({
    service,
    webhooks,
    admission,
    trustProxy: config.trustProxy,
    logger,
    sseKeepAliveMs: config.sseKeepAliveSeconds * 1000,
    mounted: { '/mcp': mcpRoute },
  });
  return {
    http,
    asnSource: asn.source,
    close: async () => {
      await webhooks.close();
      optOut.close();
    },
  };
}
