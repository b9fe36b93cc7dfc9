// The HTTP interface on the front given (uWebSockets.js or Node's http): the
// routes of the route table, and JSON answers for unknown paths (404) and
// methods (405).
import type { Logger } from 'pino';

import { ApiError } from '../api/api-error.js';
import type { Admission } from '../limits/admission.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Scans } from '../scan/scans.js';
import type { Webhooks } from '../webhook/webhooks.js';
import { ClientAddressResolver } from './client-address.js';
import type { CorsPolicy } from './cors.js';
import type { ProxyHeader } from './forwarded-hops.js';
import { HEALTH_PATH, type HealthCheck, healthRoute } from './health.js';
import type { HttpApp, HttpFront } from './http-front.js';
import { checkedApp } from './request-checks.js';
import { RouteContext } from './route-context.js';
import { allowedMethods, ROUTES, type Route } from './routes.js';

export interface HttpAppOptions {
  service: Scans;
  webhooks: Webhooks;
  admission: Admission;
  /** CIDRs of the proxies in front of the service. */
  trustProxy: readonly string[];
  /** The forwarding header those proxies write. */
  trustProxyHeader: ProxyHeader;
  /** The origins whose pages may read answers cross-origin. */
  cors: CorsPolicy;
  logger: Logger;
  /** Interval of `: keep-alive` comments on v2 streams. */
  sseKeepAliveMs: number;
  /** Routes of other interfaces (MCP), by path, served beside HTTP's own. */
  mounted?: Readonly<Record<string, Route>>;
  /** Answers GET /healthz. */
  health: HealthCheck;
  /** Counts requests and streams; absent: nothing counted. */
  metrics?: Metrics;
}

export function createHttpApp(front: HttpFront, options: HttpAppOptions): HttpApp {
  const app = checkedApp(front);
  const context = new RouteContext({ app, ...options, clientAddress: new ClientAddressResolver(options.trustProxy, options.trustProxyHeader) });
  const served: Readonly<Record<string, Route>> = { ...ROUTES, ...options.mounted, [HEALTH_PATH]: healthRoute(options.health) };
  const routes = Object.entries(served);
  context.routePatterns = new Set(Object.keys(served));
  for (const [path, route] of routes) route.register(context, path);
  for (const [path, route] of routes) {
    if (route.answersOtherMethods) continue;
    const allow = allowedMethods(route);
    app.any(path, (res, req) => {
      const method = req.getMethod().toUpperCase();
      context.handle(res, req, method, path, async (exchange, _ip, headers) => {
        const error = new ApiError('method_not_allowed', `${method} is not allowed on ${path}; use ${allow}`);
        await exchange.error(error.answer({ ...headers, Allow: allow }));
        return '405';
      });
    });
  }
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const url = req.getUrl();
    context.handle(res, req, method, url, async (exchange, _ip, headers) => {
      await exchange.error(new ApiError('not_found', `no such endpoint: ${url}`).answer(headers));
      return '404';
    });
  });

  return front.serve(app, served, options.logger);
}
