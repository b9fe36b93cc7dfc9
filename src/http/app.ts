// The HTTP interface on uWebSockets.js: v1 and v2 routes, the OpenAPI
// document, and JSON answers for unknown paths (404) and methods (405).
import type { Logger } from 'pino';

import type { Admission } from '../limits/admission.js';
import { registerMcp } from '../mcp/mcp-endpoint.js';
import type { ScanService } from '../scan/scan-service.js';
import { SCAN_TYPES } from '../scan/scan-types.js';
import type { WebhookService } from '../webhook/webhook-service.js';
import { ClientAddressResolver } from './client-address.js';
import { ApiError } from './errors.js';
import { openApiJson } from './openapi.js';
import { RouteContext } from './route-context.js';
import { registerV1 } from './routes-v1.js';
import { registerV2 } from './routes-v2.js';
import { loadUws, type us_listen_socket } from './uws.js';

export interface HttpAppOptions {
  service: ScanService;
  webhooks: WebhookService;
  admission: Admission;
  /** CIDRs of the proxies in front of the service (X-Forwarded-For). */
  trustProxy: readonly string[];
  logger: Logger;
  /** Interval of `: keep-alive` comments on v2 streams. */
  sseKeepAliveMs: number;
}

export interface HttpApp {
  /** Starts listening; resolves with the port (useful with port 0). */
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections; open responses carry on. */
  stopListening(): void;
}

/** Paths and the methods they answer; anything else on them is a 405. */
const ALLOWED: Record<string, string> = {
  '/v1/fast': 'GET, POST',
  '/v1/deep': 'GET, POST',
  '/v2/fast': 'GET',
  '/v2/deep': 'GET',
  '/openapi.json': 'GET',
  '/.well-known/selfscan-webhook-key': 'GET',
};

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const uws = loadUws();
  const app = uws.App();
  const context = new RouteContext({ app, ...options, clientAddress: new ClientAddressResolver(options.trustProxy) });
  for (const scanType of SCAN_TYPES) {
    registerV1(context, scanType);
    registerV2(context, scanType);
  }
  registerMcp(context);
  app.get('/openapi.json', (res, req) => {
    context.handle(res, req, 'GET', '/openapi.json', async (exchange, _ip, headers) => {
      await exchange.jsonText('200 OK', openApiJson, headers);
      return '200';
    });
  });
  app.get('/.well-known/selfscan-webhook-key', (res, req) => {
    context.handle(res, req, 'GET', '/.well-known/selfscan-webhook-key', async (exchange, _ip, headers) => {
      await exchange.json('200 OK', options.webhooks.key.publicDocument, headers);
      return '200';
    });
  });
  for (const [path, allow] of Object.entries(ALLOWED)) {
    app.any(path, (res, req) => {
      const method = req.getMethod().toUpperCase();
      context.handle(res, req, method, path, async (exchange, _ip, headers) => {
        const error = new ApiError('method_not_allowed', `${method} is not allowed on ${path}; use ${allow}`);
        await exchange.error(error, { ...headers, Allow: allow });
        return '405';
      });
    });
  }
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const url = req.getUrl();
    context.handle(res, req, method, url, async (exchange, _ip, headers) => {
      await exchange.error(new ApiError('not_found', `no such endpoint: ${url}`), headers);
      return '404';
    });
  });

  let listenSocket: us_listen_socket | undefined;
  return {
    listen: (host, port) =>
      new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (socket === false) return reject(new Error(`could not listen on ${host}:${port}`));
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket));
        });
      }),
    stopListening: () => {
      if (listenSocket !== undefined) uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
    },
  };
}
