// The OpenAPI document's paths and webhooks: the operations and their
// prose, written by hand; every schema they name is a generated component.
import { Health } from './health.js';
import { JsonRpcMessage } from './json-rpc-message.js';
import { errorSchema, headerRef, jsonResponse, notFoundAndMethod, rateLimitHeaders, responseRef, unlimitedJsonResponse } from './openapi-components.js';
import { schemaRef } from './openapi-schemas.js';
import { ScanQueued } from './scan-queued.js';
import { ScanResult } from './scan-result.js';
import type { ScanType } from './scan-type.js';
import { WebhookKey } from './webhook-key.js';
import { WebhookEvent, WebhookPayload } from './webhook-payload.js';

const jsonRpcMessage = schemaRef(JsonRpcMessage);

/** GET and DELETE /mcp: a stateless server has no stream or session to offer. */
function mcpNotAllowed(method: 'GET' | 'DELETE') {
  return {
    operationId: `mcp${method.charAt(0)}${method.slice(1).toLowerCase()}`,
    tags: ['agents'],
    summary: `${method} is not supported by the stateless MCP endpoint`,
    responses: {
      '405': jsonResponse('Only POST is supported (Allow: POST); the body is a JSON-RPC error.', jsonRpcMessage, {
        Allow: { schema: { type: 'string', const: 'POST' } },
      }),
      '429': responseRef('RateLimited'),
    },
  };
}

/** `Fast`, `Deep`, `Udp`: the scan type in an operationId. */
const titleOf = (type: ScanType): string => type[0]!.toUpperCase() + type.slice(1);

function startOperation(type: ScanType) {
  return {
    operationId: `start${titleOf(type)}Scan`,
    tags: ['polling'],
    summary: `Start a ${type} scan of the caller's address`,
    description:
      `Queues a ${type} scan of the address the request comes from, then poll GET /v1/${type}. ` +
      'No body. When a scan of the same address and type is already in flight, no new scan starts: ' +
      'the response reflects that scan, with its chunk counters.',
    parameters: [{ $ref: '#/components/parameters/X-Callback-Url' }, { $ref: '#/components/parameters/regions' }],
    responses: {
      '200': jsonResponse('The scan is queued, or the request joined the scan in flight.', schemaRef(ScanQueued)),
      '403': responseRef('NotAvailable'),
      '422': responseRef('InvalidScanRequest'),
      ...notFoundAndMethod,
    },
  };
}

function resultOperation(type: ScanType) {
  return {
    operationId: `get${titleOf(type)}Scan`,
    tags: ['polling'],
    summary: `The caller's latest ${type} scan`,
    description:
      `Returns the state or result of the caller's ${type} scan. Poll until the status is \`complete\`, ` +
      '`incomplete` or `failed`. A failed scan is a 200 with `fail_reason`, not an HTTP error; ' +
      '`none` means no scan exists (or its result expired).',
    parameters: [{ $ref: '#/components/parameters/regions' }],
    responses: {
      '200': jsonResponse('The scan, whatever its status.', schemaRef(ScanResult), {
        'X-Scan-Duration-Ms': headerRef('X-Scan-Duration-Ms'),
      }),
      '422': responseRef('InvalidRegions'),
      ...notFoundAndMethod,
    },
  };
}

function streamOperation(type: ScanType) {
  return {
    operationId: `stream${titleOf(type)}Scan`,
    tags: ['streaming'],
    summary: `Start or attach to a ${type} scan and stream its progress`,
    description:
      `Starts a ${type} scan of the caller's address unless one is in flight (including one started by ` +
      `POST /v1/${type}), in which case the stream attaches to it. A start that is refused returns a JSON ` +
      'Error instead of a stream.',
    parameters: [{ $ref: '#/components/parameters/regions' }],
    responses: {
      '200': responseRef('ScanEventStream'),
      '403': responseRef('NotAvailable'),
      '422': responseRef('InvalidTarget'),
      ...notFoundAndMethod,
    },
  };
}

/** Every path of the HTTP interface and its operations. */
export const paths = {
  '/v1/fast': { post: startOperation('fast'), get: resultOperation('fast') },
  '/v1/deep': { post: startOperation('deep'), get: resultOperation('deep') },
  '/v2/fast': { get: streamOperation('fast') },
  '/v2/deep': { get: streamOperation('deep') },
  '/v1/udp': { post: startOperation('udp'), get: resultOperation('udp') },
  '/v2/udp': { get: streamOperation('udp') },
  '/.well-known/selfscan-webhook-key': {
    get: {
      operationId: 'getWebhookKey',
      tags: ['meta'],
      summary: 'The public key that signs webhooks',
      description: 'Verify `X-Selfscan-Signature` (base64 Ed25519) over the bytes `<X-Selfscan-Timestamp>.<raw body>` with this key.',
      responses: {
        '200': jsonResponse('The Ed25519 public key, as a JWK (RFC 8037) and as PEM.', schemaRef(WebhookKey)),
        ...notFoundAndMethod,
      },
    },
  },
  '/mcp': {
    post: {
      operationId: 'mcp',
      tags: ['agents'],
      summary: 'Model Context Protocol (Streamable HTTP): tools fast_scan, deep_scan and udp_scan',
      description:
        'Stateless MCP over Streamable HTTP (no Mcp-Session-Id, no key). Tools `fast_scan`, `deep_scan` and `udp_scan` (since 1.3) take ' +
        '`{ "rescan"?: boolean }` and scan only the caller\'s own address. A call does not block: it starts a scan ' +
        'when none is in flight and no unexpired result exists (or when `rescan` is true), else it returns the ' +
        'scan in flight or the last result; agents poll by calling again. `structuredContent` is shaped like the ' +
        'ScanResult of that status plus `message` and, while not finished, `poll_after_seconds`. A refused start ' +
        '(invalid_target, not_available, rate_limited) is a tool result with `isError: true` carrying `error`, ' +
        '`reason` and `retry_after`. With a progress token, the call stays open (up to 25 s) and sends ' +
        '`notifications/progress` (progress = chunks done, total = all chunks). The same target rule, opt-out, ' +
        'rate limits (shared counters) and coalescing apply as on REST; every request counts against the edge limit.',
      requestBody: { required: true, content: { 'application/json': { schema: jsonRpcMessage } } },
      responses: {
        '200': {
          description: 'The JSON-RPC response; as an event stream when progress notifications come first.',
          headers: rateLimitHeaders,
          content: { 'application/json': { schema: jsonRpcMessage }, 'text/event-stream': { schema: { type: 'string' } } },
        },
        '202': { description: 'A notification or response was accepted.', headers: rateLimitHeaders },
        '400': jsonResponse('Malformed JSON or not a JSON-RPC message.', jsonRpcMessage),
        '413': jsonResponse('The body is larger than 1 MiB.', jsonRpcMessage),
        '415': jsonResponse('The body is not application/json.', jsonRpcMessage),
        '404': responseRef('NotFound'),
        '429': responseRef('RateLimited'),
        '503': responseRef('Unavailable'),
      },
    },
    get: mcpNotAllowed('GET'),
    delete: mcpNotAllowed('DELETE'),
  },
  '/healthz': {
    get: {
      operationId: 'getHealth',
      tags: ['meta'],
      summary: "This node's health",
      description: 'For load balancers and operators: never rate-limited. A cluster node answers 503 while it cannot reach Redis.',
      responses: {
        '200': unlimitedJsonResponse('The node can serve.', schemaRef(Health)),
        '405': unlimitedJsonResponse('A method other than GET or HEAD (Allow: GET, HEAD).', errorSchema(['method_not_allowed']), {
          Allow: { schema: { type: 'string', const: 'GET, HEAD' } },
        }),
        '503': unlimitedJsonResponse('The node cannot reach Redis.', schemaRef(Health)),
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      tags: ['meta'],
      summary: "This node's Prometheus metrics",
      description:
        'The Prometheus text format (version 0.0.4), for a scraper on a network of `metrics.allow` (by default loopback and private networks). ' +
        'Never rate-limited. Absent here when `metrics.listen` gives metrics a port of their own.',
      responses: {
        '200': {
          description: "The node's metrics: scans, queue, probes, HTTP, limits, webhooks, Redis and the process.",
          content: { 'text/plain; version=0.0.4; charset=utf-8': { schema: { type: 'string' } } },
        },
        '403': unlimitedJsonResponse('The connection comes from a network outside `metrics.allow`.', errorSchema(['not_available'])),
        '405': unlimitedJsonResponse('A method other than GET or HEAD (Allow: GET, HEAD).', errorSchema(['method_not_allowed']), {
          Allow: { schema: { type: 'string', const: 'GET, HEAD' } },
        }),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      tags: ['meta'],
      summary: 'This OpenAPI document',
      responses: {
        '200': jsonResponse('The OpenAPI 3.1 document.', {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
        }),
        ...notFoundAndMethod,
      },
    },
  },
};

/** The webhook a v1 POST with X-Callback-Url asks for. */
export const webhooks = {
  scanFinished: {
    post: {
      operationId: 'scanFinished',
      summary: 'Sent to X-Callback-Url when the scan ends',
      description:
        'One POST per X-Callback-Url given on a v1 POST (coalesced POSTs each get their own), when the scan ' +
        'completes (`scan.complete`, also for `incomplete` results) or fails (`scan.failed`). Sent only to ' +
        'public addresses, no redirects followed, 5 s per attempt. Network errors, timeouts, 5xx and 429 ' +
        'are retried after 10 s, 1 min, 5 min, 30 min and 2 h, then given up; any other answer ends it. ' +
        'A delivery owed when the service stops is made after it restarts. The delivery id stays the same ' +
        'on every retry: receivers use it to ignore duplicates.',
      parameters: [
        {
          name: 'X-Selfscan-Delivery',
          in: 'header',
          required: true,
          schema: { type: 'string', format: 'uuid' },
          description: 'Unique per delivery, the same on retries.',
        },
        { name: 'X-Selfscan-Event', in: 'header', required: true, schema: schemaRef(WebhookEvent) },
        {
          name: 'X-Selfscan-Timestamp',
          in: 'header',
          required: true,
          schema: { type: 'integer' },
          description: 'Unix seconds of this attempt; part of what is signed.',
        },
        {
          name: 'X-Selfscan-Signature',
          in: 'header',
          required: true,
          schema: { type: 'string' },
          description: 'Base64 Ed25519 signature of `<timestamp>.<raw body>`; key at /.well-known/selfscan-webhook-key.',
        },
        { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', pattern: '^selfscan/' } },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: schemaRef(WebhookPayload) } } },
      responses: { '200': { description: 'Any 2xx answer counts as delivered.' } },
    },
  },
};
