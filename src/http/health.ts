// GET /healthz: what a load balancer or an operator asks of a node (its
// role, region, whether it reaches Redis, jobs in hand). Never rate-limited
// and never logged per request: probes come every few seconds. A scanner
// node serves nothing else over HTTP (createHealthApp).
import { ApiError } from '../api/api-error.js';
import type { Health } from '../api/health.js';
import type { HttpApp, HttpFront } from './http-front.js';
import { METRICS_PATH, type MetricsServing, metricsRoute, registerMetrics } from './metrics-route.js';
import { checkedApp } from './request-checks.js';
import type { Route } from './routes.js';
import type { HttpRequest, HttpResponse, HttpRouter } from './seam.js';
import { writeAnswer } from './write-answer.js';

export type HealthCheck = () => Promise<Health>;

export const HEALTH_PATH = '/healthz';

/** GET /healthz as a route of the table; it answers other methods itself (405, JSON). */
export function healthRoute(check: HealthCheck): Route {
  return { methods: ['GET'], register: (context) => registerHealth(context.app, check), answersOtherMethods: true };
}

/** Serves GET (and HEAD) /healthz on `app`, outside the request wrapper: no edge limit, no request log line. */
function registerHealth(app: HttpRouter, check: HealthCheck): void {
  const answerHealth = (res: HttpResponse, req: HttpRequest): void => {
    const head = req.getMethod() === 'head';
    const end = (body: string): void => void (head ? res.writeHeader('Content-Length', String(Buffer.byteLength(body))).endWithoutBody() : res.end(body));
    let aborted = false;
    res.onAborted(() => (aborted = true));
    check().then(
      (health) => {
        if (aborted) return;
        res.cork(() => {
          res
            .writeStatus(health.ok ? '200 OK' : '503 Service Unavailable')
            .writeHeader('Content-Type', 'application/json')
            .writeHeader('Cache-Control', 'no-store');
          end(JSON.stringify(health));
        });
      },
      () => {
        if (aborted) return;
        res.cork(() => {
          res.writeStatus('503 Service Unavailable').writeHeader('Content-Type', 'application/json');
          end('{"ok":false}');
        });
      },
    );
  };
  app.get(HEALTH_PATH, answerHealth);
  app.head(HEALTH_PATH, answerHealth);
  app.any(HEALTH_PATH, (res, req) => {
    const error = new ApiError('method_not_allowed', `${req.getMethod().toUpperCase()} is not allowed on ${HEALTH_PATH}; use GET`);
    writeAnswer(res, error.answer({ Allow: 'GET, HEAD' }));
  });
}

/** A scanner node's whole HTTP side: /healthz, /metrics (unless on a port of its own), and a JSON 404 for anything else. */
export function createHealthApp(front: HttpFront, check: HealthCheck, metrics?: MetricsServing): HttpApp {
  const app = checkedApp(front);
  registerHealth(app, check);
  const routes: Record<string, Route> = { [HEALTH_PATH]: healthRoute(check) };
  if (metrics !== undefined) {
    registerMetrics(app, metrics);
    routes[METRICS_PATH] = metricsRoute(metrics);
  }
  const served = Object.keys(routes).join(' and ');
  app.any('/*', (res, req) => writeAnswer(res, new ApiError('not_found', `a scanner node serves only ${served}, not ${req.getUrl()}`).answer({})));
  return front.serve(app, routes);
}
