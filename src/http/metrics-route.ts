// GET /metrics: the node's Prometheus metrics, in the text format, to the
// networks of `metrics.allow` only (matched against the connection's peer:
// a scraper connects directly). Never rate-limited and never logged per
// request, like /healthz: Prometheus scrapes every few seconds. Served on
// the HTTP port, or on a port of its own (`metrics.listen`).
import { ApiError } from '../api/api-error.js';
import { METRICS_CONTENT_TYPE, type Metrics } from '../metrics/metrics.js';
import { type Cidr, containedInAny, parseCidr } from '../net/cidr.js';
import { parseIp } from '../net/ip-address.js';
import { peerAddress } from './client-address.js';
import type { HttpApp, HttpFront } from './http-front.js';
import { checkedApp } from './request-checks.js';
import type { Route } from './routes.js';
import type { HttpResponse, HttpRouter } from './seam.js';
import { writeAnswer } from './write-answer.js';

export const METRICS_PATH = '/metrics';

/** The networks a scrape may come from. */
export class MetricsAllowList {
  private readonly networks: Cidr[];

  constructor(cidrs: readonly string[]) {
    this.networks = cidrs.map(parseCidr);
  }

  allows(ip: string): boolean {
    return containedInAny(this.networks, parseIp(ip));
  }
}

/** A node's metrics and who may read them. */
export interface MetricsServing {
  metrics: Metrics;
  allow: MetricsAllowList;
}

/** GET /metrics as a route of the table; it answers other methods itself (405, JSON). */
export function metricsRoute(serving: MetricsServing): Route {
  return { methods: ['GET'], register: (context) => registerMetrics(context.app, serving), answersOtherMethods: true };
}

/** Serves GET (and HEAD) /metrics on `app`, outside the request wrapper. */
export function registerMetrics(app: HttpRouter, { metrics, allow }: MetricsServing): void {
  app.get(METRICS_PATH, (res) => answerMetrics(res, false, metrics, allow));
  app.head(METRICS_PATH, (res) => answerMetrics(res, true, metrics, allow));
  app.any(METRICS_PATH, (res, req) => {
    const error = new ApiError('method_not_allowed', `${req.getMethod().toUpperCase()} is not allowed on ${METRICS_PATH}; use GET`);
    writeAnswer(res, error.answer({ Allow: 'GET, HEAD' }));
  });
}

function answerMetrics(res: HttpResponse, head: boolean, metrics: Metrics, allow: MetricsAllowList): void {
  const peer = peerAddress(res);
  if (!allow.allows(peer)) {
    writeAnswer(res, new ApiError('not_available', `metrics are served only to the networks in metrics.allow, not to ${peer}`).answer({}));
    return;
  }
  let aborted = false;
  res.onAborted(() => (aborted = true));
  metrics.scrape().then(
    (text) => {
      if (aborted) return;
      res.cork(() => {
        res.writeStatus('200 OK').writeHeader('Content-Type', METRICS_CONTENT_TYPE).writeHeader('Cache-Control', 'no-store');
        if (head) res.writeHeader('Content-Length', String(Buffer.byteLength(text))).endWithoutBody();
        else res.end(text);
      });
    },
    () => {
      if (aborted) return;
      res.cork(() => writeAnswer(res, new ApiError('unavailable', 'the metrics could not be read').answer({})));
    },
  );
}

/** `metrics.listen`'s own HTTP side: /metrics, and a JSON 404 for anything else. */
export function createMetricsApp(front: HttpFront, serving: MetricsServing): HttpApp {
  const app = checkedApp(front);
  registerMetrics(app, serving);
  app.any('/*', (res, req) => writeAnswer(res, new ApiError('not_found', `this port serves only ${METRICS_PATH}, not ${req.getUrl()}`).answer({})));
  return front.serve(app, { [METRICS_PATH]: metricsRoute(serving) });
}
