// The OpenAPI document: valid OpenAPI 3.1, its schemas accepting exactly
// what the zod schemas they are generated from accept, every component in
// use, portable to clients that read `type` as one string; and the response
// validator built on it accepts each shape and rejects deviations.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';

import { FAIL_REASONS } from '../../src/api/fail-reason.js';
import { openApiDocument, openApiJson } from '../../src/api/openapi.js';
import { COMPONENT_SCHEMAS } from '../../src/api/openapi-schemas.js';
import { validateResponse, validateSseEvent } from '../../support/openapi-validator.js';

type JsonObject = { [key: string]: unknown };

const served = JSON.parse(openApiJson) as JsonObject;

/** Follows `#/...` references in the served document. */
function resolve(node: unknown): JsonObject {
  const object = node as JsonObject;
  if (typeof object.$ref !== 'string') return object;
  const target = object.$ref
    .slice(2)
    .split('/')
    .reduce<unknown>((at, key) => (at as JsonObject)[key.replaceAll('~1', '/')], served);
  return resolve(target);
}

const operations = Object.entries(served.paths as JsonObject).flatMap(([path, item]) =>
  Object.entries(item as JsonObject).map(([method, op]) => ({ path, method, op: op as JsonObject })),
);

const port = (n: number, state: 'open' | 'filtered') => ({
  port: n,
  state,
  service: n === 22 ? 'ssh' : null,
  banner: n === 22 ? 'SSH-2.0-OpenSSH_9.6' : null,
});

const complete = {
  ip: '203.0.113.7',
  scan_type: 'fast',
  status: 'complete',
  ports_open: [port(22, 'open')],
  ports_filtered: [port(25, 'filtered')],
  service_banners: { '22': 'SSH-2.0-OpenSSH_9.6' },
  ptr_record: 'host.example.net',
  duration_ms: 12_345,
  completed_at: 1_700_000_000,
  expires_at: 1_700_086_400,
};
const incomplete = {
  ...complete,
  scan_type: 'deep',
  status: 'incomplete',
  ptr_record: null,
  partial: true,
  chunks_complete: 40,
  total_chunks: 64,
};
const failed = {
  ip: '2001:db8::7',
  scan_type: 'deep',
  status: 'failed',
  chunks_complete: 3,
  total_chunks: 64,
  fail_reason: 'interrupted',
};
const inFlight = {
  ip: '203.0.113.7',
  scan_type: 'deep',
  status: 'queued',
  queue_position: 2,
  chunks_complete: 0,
  total_chunks: 64,
  eta_seconds: 90,
};
const sseQueued = {
  ip: '203.0.113.7',
  scan_type: 'fast',
  status: 'queued',
  queue_position: 0,
  eta_seconds: 15,
  chunks_complete: 0,
  total_chunks: 4,
};
const sseProgress = {
  ip: '203.0.113.7',
  scan_type: 'fast',
  status: 'running',
  queue_position: 0,
  chunks_complete: 2,
  total_chunks: 4,
  ports_open: [port(22, 'open')],
  filtered_count: 1,
};
const error = (code: string) => ({ error: code, reason: 'Explanation.' });

const scanQueued = { ip: '203.0.113.7', scan_type: 'fast', status: 'queued', eta_seconds: 15 };
const none = { ip: '203.0.113.7', scan_type: 'fast', status: 'none' };
const without = (value: object, key: string) => Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));

/** Valid shapes of the interface: each is accepted by some component's zod schema. */
const VALID: Record<string, unknown> = {
  complete,
  'complete with nothing found': { ...complete, ports_open: [], ports_filtered: [], service_banners: {} },
  'complete over IPv6': { ...complete, ip: '2001:db8::7' },
  incomplete,
  ...Object.fromEntries(FAIL_REASONS.map((reason) => [`failed (${reason})`, { ...failed, fail_reason: reason }])),
  'in flight': inFlight,
  running: { ...inFlight, status: 'running', queue_position: 0, chunks_complete: 9 },
  none,
  'a fresh ScanQueued': scanQueued,
  'a coalesced ScanQueued': { ...scanQueued, status: 'running', chunks_complete: 1, total_chunks: 4 },
  progress: sseProgress,
  'an error': error('not_available'),
  'a rate-limited error': { ...error('rate_limited'), retry_after: 30 },
  'a port': port(22, 'open'),
  'a webhook payload': { event: 'scan.complete', result: complete },
  'a failed webhook payload': { event: 'scan.failed', result: failed },
  'a JSON-RPC request': { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  'the scan type fast': 'fast',
  'an address': '203.0.113.7',
};

/** Shapes that break one rule each: no component's zod schema accepts them. */
const BROKEN: Record<string, unknown> = {
  'a stray field': { ...complete, stray: 1 },
  'an unknown status': { ...complete, status: 'done' },
  'an unknown fail reason': { ...failed, fail_reason: 'timeout' },
  'incomplete without partial': without(incomplete, 'partial'),
  'incomplete with partial false': { ...incomplete, partial: false },
  'a missing field': without(complete, 'expires_at'),
  'a port out of range': { ...complete, ports_open: [port(70_000, 'open')] },
  'an unknown port state': { ...complete, ports_open: [{ ...port(22, 'open'), state: 'half-open' }] },
  'a banner keyed by a name': { ...complete, service_banners: { ssh: 'x' } },
  'a host name as ip': { ...complete, ip: 'example.com' },
  'a fractional duration': { ...complete, duration_ms: 1.5 },
  'a ptr_record that is a number': { ...complete, ptr_record: 7 },
  'only one chunk counter': { ...scanQueued, status: 'running', chunks_complete: 1 },
  'a total of no chunks': { ...failed, total_chunks: 0 },
  'an unknown error code': error('teapot'),
  'a negative retry_after': { ...error('rate_limited'), retry_after: -1 },
  'a webhook payload of a scan in flight': { event: 'scan.complete', result: inFlight },
  'a JSON-RPC 1.0 message': { jsonrpc: '1.0', id: 1 },
  'the scan type slow': 'slow',
};

// The document's own component schemas, compiled from the served JSON.
const DOC_ID = 'https://selfscan.invalid/openapi.json';
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormatsModule.default(ajv);
ajv.addVocabulary([...Object.keys(served), 'discriminator']);
ajv.addSchema(served, DOC_ID);
const documentSchema = (name: string) => ajv.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });

/** The components whose zod schema accepts `value`. */
const acceptedBy = (value: unknown): string[] =>
  Object.entries(COMPONENT_SCHEMAS)
    .filter(([, schema]) => schema.safeParse(value).success)
    .map(([name]) => name);

/** Every `$ref` in `node`, extensions included. */
function refs(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refs);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => (key === '$ref' && typeof value === 'string' ? [value] : refs(value)));
}

describe('openApiDocument', () => {
  it('is a valid OpenAPI 3.1 document of interface version 1.3.0 (1.0.0 plus optional fields)', async () => {
    const validator = new Validator({ allErrors: true });
    const result = await validator.validate(JSON.parse(openApiJson) as JsonObject);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(openApiDocument.info).toMatchObject({ title: 'selfscan', version: '1.3.0' });
  });

  it.each(Object.entries(VALID))('has a zod schema accepting %s', (_name, value) => {
    expect(acceptedBy(value)).not.toEqual([]);
  });

  it.each(Object.entries(BROKEN))('has no zod schema accepting %s', (_name, value) => {
    expect(acceptedBy(value)).toEqual([]);
  });

  it('has a schema for each zod schema that accepts exactly the samples the zod schema accepts', () => {
    expect(Object.keys((served.components as JsonObject).schemas as JsonObject)).toEqual(Object.keys(COMPONENT_SCHEMAS));
    const disagreements: string[] = [];
    for (const [name, schema] of Object.entries(COMPONENT_SCHEMAS)) {
      const validate = documentSchema(name);
      for (const [sample, value] of Object.entries({ ...VALID, ...BROKEN })) {
        const byZod = schema.safeParse(value).success;
        if (validate(value) !== byZod) disagreements.push(`${name} ${byZod ? 'rejects' : 'accepts'} ${sample}, unlike zod`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('uses every component it defines (extensions included)', () => {
    const components = served.components as Record<string, JsonObject>;
    const unused: string[] = [];
    for (const [kind, named] of Object.entries(components)) {
      for (const name of Object.keys(named)) {
        const ref = `#/components/${kind}/${name}`;
        const elsewhere = { ...served, components: { ...components, [kind]: without(named, name) } };
        if (!refs(elsewhere).includes(ref)) unused.push(ref);
      }
    }
    expect(unused).toEqual([]);
  });

  it('spells every nullable field as anyOf, never as a type array', () => {
    expect(openApiJson).not.toMatch(/"type":\[/);
    const schemas = (served.components as JsonObject).schemas as Record<string, JsonObject>;
    expect((schemas.Port!.properties as JsonObject).service).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('lists the rate-limit headers on every response, Retry-After on 429; none on /healthz, /metrics and the page’s assets, which are never limited', () => {
    const unlimited: Record<string, string[]> = {
      '/healthz': ['200', '405', '503'],
      '/metrics': ['200', '403', '405'],
      '/assets/{file}': ['200', '304', '404', '405'],
    };
    // A wrong method on an asset's path is charged like any request to the service.
    const chargedAnyway = new Set(['/assets/{file} 405']);
    for (const { path, method, op } of operations) {
      if (path in unlimited) {
        for (const [status, response] of Object.entries(op.responses as JsonObject)) {
          const limitHeaders = Object.keys((resolve(response).headers ?? {}) as JsonObject).filter((name) => name.startsWith('X-RateLimit'));
          expect(limitHeaders, `${path} ${status}`).toHaveLength(chargedAnyway.has(`${path} ${status}`) ? 3 : 0);
        }
        expect(Object.keys(op.responses as JsonObject).sort()).toEqual(unlimited[path]);
        continue;
      }
      for (const [status, response] of Object.entries(op.responses as JsonObject)) {
        const headers = Object.keys(resolve(response).headers as JsonObject);
        expect(headers, `${method} ${path} ${status}`).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']));
        if (status === '429') expect(headers).toContain('Retry-After');
      }
      // /mcp answers methods per operation: POST 200, GET and DELETE 405; the page's form posts redirect (303).
      const success = path.startsWith('/scan/') && method === 'post' ? '303' : '200';
      const expected = path !== '/mcp' ? [success, '404', '405'] : method === 'post' ? ['200', '404'] : ['405'];
      expect(Object.keys(op.responses as JsonObject), `${method} ${path}`).toEqual(expect.arrayContaining(expected));
    }
  });

  it('documents X-Callback-Url on the POSTs and X-Scan-Duration-Ms on the result GETs', () => {
    for (const { path, method, op } of operations) {
      if (method === 'post' && path.startsWith('/v1/')) {
        const parameters = (op.parameters as unknown[]).map(resolve);
        expect(parameters).toContainEqual(
          expect.objectContaining({ name: 'X-Callback-Url', in: 'header', schema: expect.objectContaining({ maxLength: 2048 }) }),
        );
      }
      if (method === 'get' && path.startsWith('/v1/')) {
        const ok = resolve((op.responses as JsonObject)['200']);
        expect(Object.keys(ok.headers as JsonObject)).toContain('X-Scan-Duration-Ms');
      }
    }
  });
});

describe('validateResponse', () => {
  it.each<[string, string, string, number, unknown, string?]>([
    ['a fresh ScanQueued', 'POST', '/v1/fast', 200, { ip: '203.0.113.7', scan_type: 'fast', status: 'queued', eta_seconds: 15 }],
    [
      'a coalesced ScanQueued',
      'POST',
      '/v1/deep',
      200,
      { ip: '2001:db8::7', scan_type: 'deep', status: 'running', eta_seconds: 60, chunks_complete: 5, total_chunks: 64 },
    ],
    ['none', 'GET', '/v1/fast', 200, { ip: '203.0.113.7', scan_type: 'fast', status: 'none' }],
    ['queued', 'GET', '/v1/deep', 200, inFlight],
    ['running', 'GET', '/v1/deep', 200, { ...inFlight, status: 'running', queue_position: 0, chunks_complete: 9 }],
    ['complete', 'GET', '/v1/fast', 200, complete],
    ['complete with nothing found', 'GET', '/v1/fast', 200, { ...complete, ports_open: [], ports_filtered: [], service_banners: {} }],
    ['incomplete', 'GET', '/v1/deep', 200, incomplete],
    ...FAIL_REASONS.map((reason): [string, string, string, number, unknown] => [
      `failed (${reason})`,
      'GET',
      '/v1/deep',
      200,
      { ...failed, fail_reason: reason },
    ]),
    ['403 not_available', 'POST', '/v1/fast', 403, error('not_available')],
    ['422 invalid_target', 'POST', '/v1/deep', 422, error('invalid_target')],
    ['422 invalid_callback_url', 'POST', '/v1/fast', 422, error('invalid_callback_url')],
    ['429 with retry_after', 'POST', '/v1/deep', 429, { ...error('rate_limited'), retry_after: 300 }, 'application/json; charset=utf-8'],
    ['503 unavailable', 'POST', '/v1/fast', 503, error('unavailable')],
    ['v2 422 invalid_target', 'GET', '/v2/fast', 422, error('invalid_target')],
    ['v2 429', 'GET', '/v2/deep', 429, { ...error('rate_limited'), retry_after: 12 }],
    ['a stream', 'GET', '/v2/fast', 200, 'event: scan:queued\nid: 1\ndata: {}\n\n', 'text/event-stream'],
    ['the document', 'GET', '/openapi.json', 200, served],
    ['404 on an unknown path', 'GET', '/v3/fast?x=1', 404, error('not_found')],
    ['405 on a known path', 'DELETE', '/v1/fast', 405, error('method_not_allowed')],
  ])('accepts %s', (_name, method, path, status, body, contentType) => {
    expect(() => validateResponse(method, path, status, body, contentType)).not.toThrow();
  });

  it.each<[string, string, string, number, unknown, RegExp]>([
    ['a stray field in a result', 'GET', '/v1/fast', 200, { ...complete, stray: 1 }, /stray/],
    ['a stray field in a port', 'GET', '/v1/fast', 200, { ...complete, ports_open: [{ ...port(22, 'open'), x: 1 }] }, /"x"/],
    ['a stray field in none', 'GET', '/v1/fast', 200, { ip: '203.0.113.7', scan_type: 'fast', status: 'none', ports_open: [] }, /ports_open/],
    ['queue_position on a complete result', 'GET', '/v1/fast', 200, { ...complete, queue_position: 0 }, /queue_position/],
    ['an unknown status', 'GET', '/v1/fast', 200, { ...complete, status: 'done' }, /oneOf/],
    ['an unknown fail reason', 'GET', '/v1/deep', 200, { ...failed, fail_reason: 'timeout' }, /fail_reason/],
    ['incomplete without partial', 'GET', '/v1/deep', 200, { ...incomplete, partial: undefined }, /partial/],
    ['incomplete with partial false', 'GET', '/v1/deep', 200, { ...incomplete, partial: false }, /partial/],
    ['a missing field', 'GET', '/v1/fast', 200, { ...complete, expires_at: undefined }, /expires_at/],
    ['a port out of range', 'GET', '/v1/fast', 200, { ...complete, ports_open: [port(70_000, 'open')] }, /port/],
    ['a banner keyed by a name', 'GET', '/v1/fast', 200, { ...complete, service_banners: { ssh: 'x' } }, /property name/],
    ['a host name as ip', 'GET', '/v1/fast', 200, { ...complete, ip: 'example.com' }, /\/ip/],
    [
      'only one chunk counter',
      'POST',
      '/v1/fast',
      200,
      { ip: '203.0.113.7', scan_type: 'fast', status: 'running', eta_seconds: 1, chunks_complete: 1 },
      /total_chunks/,
    ],
    ['a stray field in an error', 'POST', '/v1/fast', 429, { ...error('rate_limited'), retry: 3 }, /retry/],
    ['the wrong code for the status', 'POST', '/v1/fast', 403, error('rate_limited'), /error/],
    ['invalid_callback_url on a stream', 'GET', '/v2/fast', 422, error('invalid_callback_url'), /error/],
    ['a negative retry_after', 'POST', '/v1/fast', 429, { ...error('rate_limited'), retry_after: -1 }, /retry_after/],
    ['an undocumented status', 'GET', '/v1/fast', 403, error('not_available'), /documents no 403/],
    ['an undocumented path', 'GET', '/v3/fast', 200, {}, /no path/],
    ['an undocumented method', 'PUT', '/v1/fast', 200, {}, /no operation/],
  ])('rejects %s', (_name, method, path, status, body, message) => {
    expect(() => validateResponse(method, path, status, JSON.parse(JSON.stringify(body)))).toThrow(message);
  });

  it('rejects a content type the operation does not document', () => {
    expect(() => validateResponse('GET', '/v1/fast', 200, 'data: {}', 'text/event-stream')).toThrow(/no text\/event-stream/);
  });
});

describe('validateSseEvent', () => {
  it.each<[string, unknown]>([
    ['scan:queued', sseQueued],
    ['scan:queued', { ...sseQueued, status: 'running', chunks_complete: 1 }],
    ['scan:progress', sseProgress],
    ['scan:complete', complete],
    ['scan:complete', incomplete],
    ['scan:failed', failed],
  ])('accepts %s', (event, data) => {
    expect(() => validateSseEvent(event, data)).not.toThrow();
  });

  it.each<[string, string, unknown, RegExp]>([
    ['a stray field in progress', 'scan:progress', { ...sseProgress, ports_filtered: [] }, /ports_filtered/],
    ['progress without filtered_count', 'scan:progress', { ...sseProgress, filtered_count: undefined }, /filtered_count/],
    ['a terminal status in queued', 'scan:queued', { ...sseQueued, status: 'complete' }, /status/],
    ['a failed result as complete', 'scan:complete', failed, /oneOf/],
    ['a stray field in incomplete', 'scan:complete', { ...incomplete, extra: true }, /extra/],
    ['a complete result as failed', 'scan:failed', complete, /fail_reason/],
    ['an unknown event', 'scan:done', complete, /no SSE event scan:done/],
  ])('rejects %s', (_name, event, data, message) => {
    expect(() => validateSseEvent(event, JSON.parse(JSON.stringify(data)))).toThrow(message);
  });
});
