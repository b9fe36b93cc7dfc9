// What every route needs: the app, the scans, the abuse controls,
// and one wrapper that turns a handler into a rate-limited, logged,
// crash-proof response.

// perf_hooks' binding, not the global: reading the global `performance` is a slow global load on every request.
import { performance } from 'node:perf_hooks';

import type { Logger } from 'pino';

import { type ErrorAnswer, errorAnswer } from '../api/api-error.js';
import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanType } from '../api/scan-type.js';
import type { Admission } from '../limits/admission.js';
import { rateLimitHeaders } from '../limits/refusal.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Series } from '../metrics/series-histogram.js';
import type { ScanOrigin } from '../model/scan-record.js';
import { guardedStart, type WebhookIntent } from '../scan/guarded-start.js';
import type { ScanListener } from '../scan/scan-events.js';
import type { Scans, StartResult } from '../scan/scans.js';
import type { Webhooks } from '../webhook/webhooks.js';
import { type ClientAddressResolver, peerAddress } from './client-address.js';
import type { CorsPolicy } from './cors.js';
import { Exchange, type Headers } from './exchange.js';
import { headerLines } from './header-lines.js';
import { createRequestLog, type RequestLog } from './request-log.js';
import type { HttpRequest, HttpResponse, HttpRouter } from './seam.js';

export interface RouteContextOptions {
  app: HttpRouter;
  service: Scans;
  webhooks: Webhooks;
  admission: Admission;
  clientAddress: ClientAddressResolver;
  /** The origins whose pages may read answers cross-origin. */
  cors: CorsPolicy;
  logger: Logger;
  sseKeepAliveMs: number;
  /** Counts requests (by route pattern, method and status) and open streams; absent: nothing counted. */
  metrics?: Metrics;
}

/**
 * A route body. `headers` are the X-RateLimit-* headers every response
 * carries. Returns the status it answered (for the log), or a promise of
 * it when it answers later.
 */
export type Handler = (exchange: Exchange, ip: string, headers: Headers) => string | Promise<string>;

export interface HandleOptions {
  /** Whether the request is charged at the edge limit (default); static assets are `free`. */
  charge?: 'charged' | 'free';
  /** Writes an error in place of the JSON Error: the page's HTML routes answer people. */
  errorPage?: (exchange: Exchange, answer: ErrorAnswer) => void | Promise<void>;
}

/** A charged request answered as JSON: the options of most routes, not made per request. */
const DEFAULT_HANDLING: HandleOptions = Object.freeze({});

/** The headers of a response that carries no X-RateLimit-* headers; never changed. */
const NO_HEADERS: Headers = Object.freeze({}) as Headers;

interface RequestFacts {
  method: string;
  path: string;
  ip: string;
  /** performance.now() at the start: the log's `ms` and the latency histogram (Date.now() is too coarse). */
  began: number;
}

/** Methods counted by name; any other a client sends counts as `other`. */
const COUNTED_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** A status as the log has it (`200`, `aborted`, or an error code) as a bounded label. */
const statusLabel = (status: string): string => (/^\d{3}$/.test(status) || status === 'aborted' ? status : 'other');

export class RouteContext {
  readonly app: HttpRouter;
  readonly service: Scans;
  readonly webhooks: Webhooks;
  readonly sseKeepAliveMs: number;
  readonly metrics: Metrics | undefined;
  /** The route patterns served, counted by name; any other path (a 404) counts as `unmatched`. */
  routePatterns: ReadonlySet<string> = new Set();
  private readonly log: Logger;
  private readonly requestLog: RequestLog;
  /** The series the last request was counted in, by its path, method and status as given: most requests are like the one before. */
  private lastCounted: { path: string; method: string; status: string; series: Series } | undefined;

  constructor(private readonly options: RouteContextOptions) {
    this.app = options.app;
    this.service = options.service;
    this.webhooks = options.webhooks;
    this.sseKeepAliveMs = options.sseKeepAliveMs;
    this.metrics = options.metrics;
    this.log = options.logger;
    this.requestLog = createRequestLog(options.logger);
  }

  /**
   * Registers `handler` for GET and HEAD on `path` (RFC 9110 §9.1: HEAD is
   * GET without the body; the Exchange of a HEAD request writes no body).
   */
  get(path: string, handler: (res: HttpResponse, req: HttpRequest) => void): void {
    this.app.get(path, handler);
    this.app.head(path, handler);
  }

  /** Starts or joins a scan of `ip` through every abuse control (and the webhook limit, for a start that registers one). */
  startScan(
    ip: string,
    scanType: ScanType,
    origin: ScanOrigin,
    listener?: ScanListener,
    webhook?: WebhookIntent,
    regionsAsked?: RegionsAsked,
  ): Promise<StartResult> {
    return guardedStart(this.options.admission, this.service, ip, scanType, origin, listener, webhook, regionsAsked);
  }

  /**
   * Runs `handler` for one request: resolves the caller, charges the edge
   * limit (unless `options.charge` is `free`), adds the CORS headers of an
   * allowed origin, answers every error (as JSON unless `options.errorPage`),
   * logs one line. An answer written within the uWS callback costs no
   * promise or closure here. A HEAD request of a GET route is `method` GET
   * answered without its body.
   */
  handle(res: HttpResponse, req: HttpRequest, routeMethod: string, path: string, handler: Handler, options: HandleOptions = DEFAULT_HANDLING): void {
    const began = performance.now();
    const method = routeMethod === 'GET' && req.getMethod() === 'head' ? 'HEAD' : routeMethod;
    const exchange = new Exchange(res, req, method);
    const { clientAddress, admission, cors } = this.options;
    const peer = peerAddress(res);
    const ip = clientAddress.isTrustedProxy(peer) ? clientAddress.resolve(peer, headerLines(req, clientAddress.header)) : peer;
    const crossOrigin = cors.headersForRequest(req);
    const { charge = 'charged', errorPage } = options;
    if (admission.edgeLimited && charge === 'charged') {
      const request: RequestFacts = { method, path, ip, began };
      exchange.holdOpen(); // the limit answers after an await
      let headers: Headers = crossOrigin ?? NO_HEADERS;
      admission
        .edge(ip)
        .then((edge) => {
          if (edge !== null) headers = { ...rateLimitHeaders(edge), ...crossOrigin };
          return handler(exchange, ip, headers);
        })
        .then(
          (status) => this.logRequest(request, status),
          (error: unknown) => this.fail(exchange, request, error, headers, errorPage),
        );
      return;
    }
    const headers = crossOrigin ?? NO_HEADERS;
    let answered: string | Promise<string>;
    try {
      answered = handler(exchange, ip, headers);
    } catch (error) {
      return this.fail(exchange, { method, path, ip, began }, error, headers, errorPage);
    }
    if (typeof answered === 'string') return this.logRequest({ method, path, ip, began }, answered);
    const request: RequestFacts = { method, path, ip, began };
    exchange.holdOpen(); // still inside the uWS callback, as uWS requires
    answered.then(
      (status) => this.logRequest(request, status),
      (error: unknown) => this.fail(exchange, request, error, headers, errorPage),
    );
  }

  /** Logs and counts a request; `httpStatus` is the status code when `status` (the log's) is an error code. */
  private logRequest({ method, path, ip, began }: RequestFacts, status: string, httpStatus = status): void {
    const ms = performance.now() - began;
    this.requestLog(method, path, ip, status, ms);
    this.count(path, method, httpStatus, ms);
  }

  private count(path: string, method: string, status: string, ms: number): void {
    const metrics = this.metrics;
    if (metrics === undefined) return;
    let last = this.lastCounted;
    if (last === undefined || last.path !== path || last.method !== method || last.status !== status) {
      const route = this.routePatterns.has(path) ? path : 'unmatched';
      const series = metrics.requestSeries(route, COUNTED_METHODS.has(method) ? method : 'other', statusLabel(status));
      this.lastCounted = last = { path, method, status, series };
    }
    metrics.requestAnswered(last.series, ms / 1000);
  }

  /** Answers a handler's error (as JSON unless `errorPage`) and logs the request with its code. */
  private fail(exchange: Exchange, request: RequestFacts, error: unknown, headers: Headers, errorPage: HandleOptions['errorPage']): void {
    const answer = errorAnswer(error, headers, (unexpected) => this.logError(unexpected, 'request failed'));
    const code = answer.body.error;
    let written: void | Promise<void>;
    try {
      written = errorPage === undefined ? exchange.error(answer) : errorPage(exchange, answer);
    } catch {
      written = undefined; // the client is gone: nobody to answer
    }
    const httpStatus = answer.status.slice(0, 3);
    if (written === undefined) return this.logRequest(request, code, httpStatus);
    exchange.holdOpen();
    const log = (): void => this.logRequest(request, code, httpStatus);
    written.then(log, log);
  }

  /** Logs a failure the caller is answered for without details. */
  logError(error: unknown, context: string): void {
    this.log.error({ err: error }, context);
  }
}
