// What every route needs: the app, the scan manager, the admission checks,
// and one wrapper that turns a handler into a logged, crash-proof response.
import type { Logger } from 'pino';

import { refuseTarget } from '../limits/target-policy.js';
import { ShuttingDownError, type ScanManager } from '../scan/scan-manager.js';
import type { ScanOrigin } from '../scan/scan-record.js';
import type { ScanType } from '../scan/scan-types.js';
import { peerAddress } from './client-address.js';
import { ApiError } from './errors.js';
import { Exchange, type Headers } from './exchange.js';
import type { HttpRequest, HttpResponse, TemplatedApp } from './uws.js';

export interface RouteContextOptions {
  app: TemplatedApp;
  manager: ScanManager;
  logger: Logger;
  allowPrivateTargets: boolean;
  sseKeepAliveMs: number;
}

/** A route body: resolves with the status it answered (for the log). */
export type Handler = (exchange: Exchange, ip: string) => Promise<string>;

export class RouteContext {
  readonly app: TemplatedApp;
  readonly manager: ScanManager;
  readonly sseKeepAliveMs: number;
  private readonly log: Logger;

  constructor(private readonly options: RouteContextOptions) {
    this.app = options.app;
    this.manager = options.manager;
    this.sseKeepAliveMs = options.sseKeepAliveMs;
    this.log = options.logger;
  }

  /**
   * Checks that `ip` may start a scan; resolves with the headers for the
   * response or rejects with the ApiError to answer.
   */
  async admit(ip: string, _scanType: ScanType, origin: ScanOrigin): Promise<Headers> {
    const refusal = refuseTarget(ip, { allowPrivateTargets: this.options.allowPrivateTargets });
    if (refusal !== null) {
      this.log.info({ event: 'scan_refused', ip, origin, error: 'invalid_target' }, refusal);
      throw new ApiError('invalid_target', refusal);
    }
    return this.responseHeaders(ip);
  }

  /** Headers every response to `ip` carries. */
  responseHeaders(_ip: string): Headers {
    return {};
  }

  /** Runs `handler` for one request: reads what must be read at once, answers errors as JSON, logs. */
  handle(res: HttpResponse, req: HttpRequest, method: string, path: string, handler: Handler): void {
    const startedAt = performance.now();
    const exchange = new Exchange(res, req);
    const ip = peerAddress(res);
    const logLine = (status: string): void => {
      this.log.info({ event: 'request', method, path, ip, status, ms: Math.round(performance.now() - startedAt) }, 'request');
    };
    handler(exchange, ip).then(logLine, async (error: unknown) => {
      const answer = this.toApiError(error);
      await exchange.error(answer, this.responseHeaders(ip)).catch(() => {});
      logLine(answer.code);
    });
  }

  private toApiError(error: unknown): ApiError {
    if (error instanceof ApiError) return error;
    if (error instanceof ShuttingDownError) return new ApiError('unavailable', 'the service is shutting down; try again shortly');
    this.log.error({ err: error }, 'request failed');
    return new ApiError('unavailable', 'the service could not handle this request; try again shortly');
  }
}
