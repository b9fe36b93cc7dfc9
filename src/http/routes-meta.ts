// The routes that describe the service rather than scan: the OpenAPI
// document and the public key that signs webhooks.
import { openApiJson } from '../api/openapi.js';
import type { RouteContext } from './route-context.js';

/** GET `path`: the OpenAPI document, serialised once. */
export function registerOpenApi(context: RouteContext, path: string): void {
  context.get(path, (res, req) => {
    context.handle(res, req, 'GET', path, async (exchange, _ip, headers) => {
      await exchange.jsonText('200 OK', openApiJson, headers);
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
