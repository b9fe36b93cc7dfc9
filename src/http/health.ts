// GET /healthz: what a load balancer or an operator asks of a node (its
// role, region, whether it reaches Redis, jobs in hand). Never rate-limited
// and never logged per request: probes come every few seconds. A scanner
// node serves nothing else over HTTP (createHealthApp).
import type { HttpApp } from './app.js';
import { listeningApp } from './listening-app.js';
import { loadUws, type TemplatedApp } from './uws.js';

/** The body of GET /healthz; `ok` false answers 503. */
export interface Health {
  ok: boolean;
  role: 'all' | 'api' | 'scanner';
  region: string | null;
  /** `up` or `down`; null without Redis (a single process). */
  redis: 'up' | 'down' | null;
  /** Scans (single process), chunk jobs (scanner) or finish jobs and watched scans (API) being handled now. */
  jobsInHand: number;
}

export type HealthCheck = () => Promise<Health>;

export const HEALTH_PATH = '/healthz';

/** Serves GET /healthz on `app`. */
export function registerHealth(app: TemplatedApp, check: HealthCheck): void {
  app.get(HEALTH_PATH, (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    check().then(
      (health) => {
        if (aborted) return;
        res.cork(() => {
          res
            .writeStatus(health.ok ? '200 OK' : '503 Service Unavailable')
            .writeHeader('Content-Type', 'application/json')
            .writeHeader('Cache-Control', 'no-store')
            .end(JSON.stringify(health));
        });
      },
      () => {
        if (!aborted) res.cork(() => res.writeStatus('503 Service Unavailable').writeHeader('Content-Type', 'application/json').end('{"ok":false}'));
      },
    );
  });
}

/** A scanner node's whole HTTP side: /healthz, and a JSON 404 for anything else. */
export function createHealthApp(check: HealthCheck): HttpApp {
  const uws = loadUws();
  const app = uws.App();
  registerHealth(app, check);
  app.any('/*', (res, req) => {
    const body = JSON.stringify({ error: 'not_found', reason: `a scanner node serves only ${HEALTH_PATH}, not ${req.getUrl()}` });
    res.writeStatus('404 Not Found').writeHeader('Content-Type', 'application/json').end(body);
  });
  return listeningApp(uws, app, {});
}
