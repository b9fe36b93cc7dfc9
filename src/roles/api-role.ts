// The API role: the interfaces callers use (REST, SSE, MCP, webhooks) and
// the abuse controls in front of them, over scans run elsewhere (this
// process's scanner role or a cluster's scanner nodes). It never loads the
// native scanner, so an API-only process can run where scans do not.
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import { createHttpApp } from '../http/app.js';
import { CorsPolicy } from '../http/cors.js';
import type { HealthCheck } from '../http/health.js';
import type { HttpApp, HttpFront } from '../http/http-front.js';
import type { Route } from '../http/routes.js';
import { Admission } from '../limits/admission.js';
import { openAsnLookup } from '../limits/asn/open-asn-lookup.js';
import { OptOutList } from '../limits/opt-out/opt-out-list.js';
import type { RateLimitStore } from '../limits/rate/rate-limit-store.js';
import { mcpRoute } from '../mcp/mcp-endpoint.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Clock } from '../model/clock.js';
import type { Scans } from '../scan/scans.js';
import { corsOrigins, pageSettings } from '../web/page-settings.js';
import { loadWebAssets } from '../web/web-assets.js';
import { webRoutes } from '../web/web-routes.js';
import type { Webhooks } from '../webhook/webhooks.js';

export interface ApiRoleDependencies {
  scans: Scans;
  webhooks: Webhooks;
  rateLimits: RateLimitStore;
  health: HealthCheck;
  clock: Clock;
  logger: Logger;
  /** Counts requests, streams and refusals; GET /metrics is among `mounted` unless it has a port of its own. */
  metrics: Metrics;
  /** Routes of this node's own beside the API's (GET /metrics). */
  mounted: Readonly<Record<string, Route>>;
  /** The HTTP server the API runs on. */
  front: HttpFront;
  /** The regions with a live scanner node (a cluster's API node): the page offers a scan from every region when there are several. */
  liveRegions?: () => Promise<string[]>;
}

export interface ApiRole {
  http: HttpApp;
  /** Where ASN data came from, for the start-up log line. */
  asnSource: string;
  /** Stops the opt-out watcher (after the HTTP side stopped). */
  close(): void;
}

export async function openApiRole(config: Config, deps: ApiRoleDependencies): Promise<ApiRole> {
  const { logger } = deps;
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
    metrics: deps.metrics,
  });
  const http = createHttpApp(deps.front, {
    service: deps.scans,
    webhooks: deps.webhooks,
    admission,
    trustProxy: config.trustProxy,
    trustProxyHeader: config.trustProxyHeader,
    logger,
    sseKeepAliveMs: config.sseKeepAliveSeconds * 1000,
    cors: new CorsPolicy(corsOrigins(config)),
    mounted: { '/mcp': mcpRoute, ...webRoutes(pageSettings(config, deps.liveRegions), loadWebAssets()), ...deps.mounted },
    health: deps.health,
    metrics: deps.metrics,
  });
  return { http, asnSource: asn.source, close: () => optOut.close() };
}
