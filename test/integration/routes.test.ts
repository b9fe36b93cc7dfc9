// The served routes and the served OpenAPI document agree, against the real
// server on port 0: every documented operation is served, every route the
// app registers is documented, other methods are a 405 and any other path a
// 404; and /openapi.json serves the document's exact bytes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { openApiJson } from '../../src/api/openapi.js';
import { allowedMethods } from '../../src/http/routes.js';
import { loadWebAssets } from '../../src/web/web-assets.js';
import { callerFetch } from '../../support/callers.js';
import { validateResponse } from '../../support/openapi-validator.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

type JsonObject = Record<string, unknown>;

const document = JSON.parse(openApiJson) as { paths: Record<string, Record<string, { responses: JsonObject }>> };
const fetch = callerFetch('127.0.0.90');

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** A documented path with its parameters filled in: a real asset's name for `{file}`. */
function concrete(path: string): string {
  return path.replace('{file}', loadWebAssets().path('app.js').slice('/assets/'.length));
}

/** A registered route pattern (`/assets/:file`) as the document writes it (`/assets/{file}`). */
const documentedPath = (pattern: string): string => pattern.replace(/:(\w+)/g, '{$1}');

/** What each method needs to be served as a client would use it. */
const REQUESTS: Record<string, { headers?: Record<string, string>; body?: string }> = {
  POST: {
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  },
};

/** Sends `method path`; returns the status and content type, the body checked against the document when it is JSON. */
async function answer(method: string, path: string): Promise<{ status: number; contentType: string }> {
  const abort = new AbortController();
  const response = await fetch(`${server.url}${concrete(path)}`, { method, ...REQUESTS[method], redirect: 'manual', signal: abort.signal });
  const contentType = response.headers.get('content-type') ?? '';
  if (contentType.startsWith('application/json')) validateResponse(method, path, response.status, await response.json(), contentType);
  else abort.abort(); // a stream: its head is the answer
  return { status: response.status, contentType };
}

/** The documented operations, each with its method upper case and whether it documents a 2xx answer. */
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    path,
    method: method.toUpperCase(),
    served: Object.keys(operation.responses).some((status) => /^[23]/.test(status)),
    statuses: Object.keys(operation.responses).map(Number),
  })),
);

describe('routes', () => {
  it('serves the OpenAPI document byte for byte', async () => {
    const response = await fetch(`${server.url}/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(openApiJson);
  });

  it('documents exactly the routes the app registers', () => {
    const documented = operations.filter((op) => op.served).map((op) => `${op.method} ${op.path}`);
    const registered = Object.entries(server.server.routes).flatMap(([path, route]) => route.methods.map((method) => `${method} ${documentedPath(path)}`));
    expect(documented.sort()).toEqual(registered.sort());
  });

  it.each(operations)('answers $method $path as documented', async ({ method, path, served, statuses }) => {
    const { status } = await answer(method, path);
    if (served) expect([404, 405]).not.toContain(status);
    expect(statuses).toContain(status);
  });

  it('answers other methods on each route with a 405 naming the served ones', async () => {
    const routes = Object.entries(server.server.routes).filter(([, route]) => !route.answersOtherMethods);
    expect(routes.length).toBeGreaterThan(0);
    for (const [path, route] of routes) {
      const response = await fetch(`${server.url}${concrete(documentedPath(path))}`, { method: 'PUT' });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow')).toBe(allowedMethods(route));
      validateResponse('PUT', documentedPath(path), 405, await response.json());
    }
  });

  it('answers HEAD on every GET route with the status GET has, and no body', async () => {
    const gets = Object.entries(server.server.routes).filter(([, route]) => route.methods.includes('GET') && !route.answersOtherMethods);
    expect(gets.length).toBeGreaterThan(0);
    for (const [path] of gets) {
      const url = `${server.url}${concrete(documentedPath(path))}`;
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.status, path).toBe(200);
      expect(await head.text(), path).toBe('');
    }
  });

  it('answers an undocumented path with a 404', async () => {
    for (const path of ['/v3/fast', '/v1', '/openapi.yaml', '/mcp/x']) {
      expect(Object.keys(document.paths)).not.toContain(path);
      const response = await fetch(`${server.url}${path}`);
      expect(response.status).toBe(404);
      validateResponse('GET', path, 404, await response.json());
    }
  });
});
