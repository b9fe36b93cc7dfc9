// A node's metrics, whatever its role: the registry, who may read it
// (`metrics.allow`) and where it is served: as GET /metrics on the node's
// HTTP port, or on a port of its own (`metrics.listen`), where it is then
// the only route.
import type { Logger } from 'pino';

import { VERSION } from '../api/version.js';
import type { Config } from '../config/config.js';
import { chooseHttpFront } from '../http/front-choice.js';
import type { HttpApp, HttpFront } from '../http/http-front.js';
import { createMetricsApp, METRICS_PATH, MetricsAllowList, type MetricsServing, metricsRoute } from '../http/metrics-route.js';
import type { Route } from '../http/routes.js';
import { Metrics } from '../metrics/metrics.js';

export interface NodeMetrics {
  metrics: Metrics;
  /** The HTTP server every HTTP side of this node runs on (setting `http.server`). */
  front: HttpFront;
  /** What the node's HTTP port serves of them: /metrics, or nothing when they have a port of their own. */
  mounted: Readonly<Record<string, Route>>;
  /** The same, for a scanner node's health-only HTTP side. */
  onHealthApp: MetricsServing | undefined;
  /** Listens on `metrics.listen`, if set; resolves with that port (or null). */
  listen(logger: Logger): Promise<number | null>;
  stop(): void;
}

/** `host:port` (`[::1]:9464`, `:9464` for every IPv4 address) as host and port. */
export function listenAddress(text: string): { host: string; port: number } {
  const colon = text.lastIndexOf(':');
  const host = text.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host: host === '' ? '0.0.0.0' : host, port: Number(text.slice(colon + 1)) };
}

/** The node's metrics and its HTTP front, chosen here once (the choice is logged, and labels selfscan_info). */
export function openNodeMetrics(config: Config, role: string, logger: Logger): NodeMetrics {
  const { server, headersTimeoutSeconds, requestTimeoutSeconds } = config.http;
  const front = chooseHttpFront({ server, headersTimeoutMs: headersTimeoutSeconds * 1000, requestTimeoutMs: requestTimeoutSeconds * 1000 }, logger);
  const metrics = new Metrics({ version: VERSION, role, http_server: front.name });
  const serving: MetricsServing = { metrics, allow: new MetricsAllowList(config.metrics.allow) };
  const ownPort = config.metrics.listen;
  let app: HttpApp | undefined;
  return {
    metrics,
    front,
    mounted: ownPort === undefined ? { [METRICS_PATH]: metricsRoute(serving) } : {},
    onHealthApp: ownPort === undefined ? serving : undefined,
    listen: async (logger) => {
      if (ownPort === undefined) return null;
      const { host, port } = listenAddress(ownPort);
      app = createMetricsApp(front, serving);
      const bound = await app.listen(host, port);
      logger.info({ event: 'metrics_listening', host, port: bound }, `metrics on ${host}:${bound}${METRICS_PATH}`);
      return bound;
    },
    stop: () => app?.stopListening(),
  };
}
