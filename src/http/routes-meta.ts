// The routes that describe the service rather than scan: the OpenAPI
// document and the public key that signs webhooks.
import { openApiJson } from '../api/openapi.js';
import { prepareJson } from './exchange.js';
import type { RouteContext } from './route-context.js';

/**
 * GET `path`: the OpenAPI document, serialised and compressed once. Over
 * 64 KiB it would otherwise be compressed off the event loop, and uWS
 * closes a connection whose next pipelined request comes while an answer
 * is pending.
 */
export function registerOpenApi(context: RouteContext, path: string): void {
  const document = prepareJson(openApiJson);
  context.get(path, (res, req) => {
    context.handle(res, req, 'GET', path, (exchange, _ip, headers) => {
      exchange.preparedJson('200 OK', document, headers);
      return '200';
    });
  });
}

/** GET `path`: the webhook signing key's public half. */
export function registerWebhookKey(context: RouteContext, path: string): void {
  context.get(path, (res, req) => {
    context.handle(res, req, 'GET', path, async (exchange, _ip, headers) => {
      await exchange.json('200 OK', context.webhooks.key.publicDocument, headers);
      return '200';
    });
  });
}
