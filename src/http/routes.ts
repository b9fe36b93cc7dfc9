// The paths the HTTP layer serves itself, the methods it answers there and
// what registers them. Other interfaces (MCP) mount their routes beside
// these; the app answers any other method on a route's path with a 405
// naming the served ones, and any other path with a 404. The OpenAPI
// document describes exactly the routes an app serves; HEAD, answered
// wherever GET is (RFC 9110 §9.1), is implied by GET there.
import type { ScanType } from '../api/scan-type.js';
import type { RouteContext } from './route-context.js';
import { registerOpenApi, registerWebhookKey } from './routes-meta.js';
import { registerV1 } from './routes-v1.js';
import { registerV2 } from './routes-v2.js';

/** A method a route serves. */
export type Method = 'GET' | 'POST';

export interface Route {
  /** The methods served, in the order the Allow header of a 405 lists them. */
  methods: readonly Method[];
  /** Registers the route's handlers for `path` on the app. */
  register: (context: RouteContext, path: string) => void;
  /** The route answers every other method itself (the MCP endpoint: a JSON-RPC 405). */
  answersOtherMethods?: true;
}

/** The methods answered on `route`'s path, for an Allow header: HEAD wherever GET is. */
export function allowedMethods(route: Route): string {
  return route.methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ');
}

const v1 = (scanType: ScanType): Route => ({ methods: ['GET', 'POST'], register: (context, path) => registerV1(context, path, scanType) });
const v2 = (scanType: ScanType): Route => ({ methods: ['GET'], register: (context, path) => registerV2(context, path, scanType) });

/** HTTP's own routes, by path. */
export const ROUTES: Readonly<Record<string, Route>> = {
  '/v1/fast': v1('fast'),
  '/v1/deep': v1('deep'),
  '/v2/fast': v2('fast'),
  '/v2/deep': v2('deep'),
  '/v1/udp': v1('udp'),
  '/v2/udp': v2('udp'),
  '/openapi.json': { methods: ['GET'], register: registerOpenApi },
  '/.well-known/selfscan-webhook-key': { methods: ['GET'], register: registerWebhookKey },
};
