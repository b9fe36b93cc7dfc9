// The OpenAPI 3.1 description of the HTTP interface (interface version
// 1.0.0), served at GET /openapi.json and used by the tests to check every
// response the server sends.
import { FAIL_REASONS, type FailReason } from '../model/scan-record.js';
import { SCAN_PROFILES, SCAN_TYPES } from '../scan/scan-types.js';

const FAIL_REASON_TEXT: Readonly<Record<FailReason, string>> = {
  interrupted: 'the service stopped (crash, restart or shutdown) before the scan ended',
  unreachable: 'the scanning server has no route to the address',
  scanner_error: 'another local error kept the scan from running',
};

const ERROR_CODES = [
  'not_found',
  'method_not_allowed',
  'not_available',
  'invalid_target',
  'invalid_callback_url',
  'rate_limited',
  'unavailable',
] as const;

type ErrorCode = (typeof ERROR_CODES)[number];

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

const rateLimitHeaders = {
  'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
};

const count = (description: string) => ({ type: 'integer', minimum: 0, description });

const ip = schemaRef('IpAddress');
const scanType = schemaRef('ScanType');
const inFlightStatus = {
  type: 'string',
  enum: ['queued', 'running'],
  description: '`queued` while waiting for the scanner, `running` once it has started.',
};
const queuePosition = count('Number of scans ahead of this one; 0 once running.');
const chunksComplete = count('Chunks of the port list finished so far.');
const totalChunks = {
  type: 'integer',
  minimum: 1,
  description: `Chunks in the whole scan (fast: ${SCAN_PROFILES.fast.totalChunks}, deep: ${SCAN_PROFILES.deep.totalChunks}).`,
};
const etaSeconds = count(
  'Indicative seconds until results: a hint for the polling interval and a rough lower bound, not a guarantee.',
);
const portList = (description: string) => ({ type: 'array', items: schemaRef('Port'), description });

/** The fields shared by `complete` and `incomplete` results. */
const resultFields = {
  ip,
  scan_type: scanType,
  ports_open: portList('Open ports found.'),
  ports_filtered: portList('Ports that did not answer (filtered).'),
  service_banners: {
    type: 'object',
    description: 'Banner of each open port that sent one, keyed by port number as a string.',
    propertyNames: { pattern: '^[1-9][0-9]{0,4}$' },
    additionalProperties: { type: 'string' },
  },
  ptr_record: { type: ['string', 'null'], description: 'Reverse-DNS name of the address, or null.' },
  duration_ms: count('Scan duration in milliseconds.'),
  completed_at: { type: 'integer', description: 'When the scan ended, Unix seconds.' },
  expires_at: {
    type: 'integer',
    description: 'When the result expires (24 hours after completion), Unix seconds. After that GET returns `none`.',
  },
};
const resultRequired = [
  'ip',
  'scan_type',
  'status',
  'ports_open',
  'ports_filtered',
  'service_banners',
  'ptr_record',
  'duration_ms',
  'completed_at',
  'expires_at',
];

/** A JSON Error response whose `error` is one of `codes`. */
function errorResponse(description: string, codes: readonly ErrorCode[], extraHeaders: object = {}) {
  const code = codes.length === 1 ? { const: codes[0] } : { enum: codes };
  return {
    description,
    headers: { ...rateLimitHeaders, ...extraHeaders },
    content: {
      'application/json': {
        schema: { allOf: [schemaRef('Error'), { type: 'object', properties: { error: code } }] },
      },
    },
  };
}

function jsonResponse(description: string, schema: object, extraHeaders: object = {}) {
  return {
    description,
    headers: { ...rateLimitHeaders, ...extraHeaders },
    content: { 'application/json': { schema } },
  };
}

/** What any request can meet: wrong path or method, the edge rate limit, a stopping service. */
const notFoundAndMethod = {
  '404': responseRef('NotFound'),
  '405': responseRef('MethodNotAllowed'),
  '429': responseRef('RateLimited'),
  '503': responseRef('Unavailable'),
};

/** GET and DELETE /mcp: a stateless server has no stream or session to offer. */
function mcpNotAllowed(method: string) {
  return {
    operationId: `mcp${method.charAt(0)}${method.slice(1).toLowerCase()}`,
    tags: ['agents'],
    summary: `${method} is not supported by the stateless MCP endpoint`,
    responses: {
      '405': jsonResponse('Only POST is supported (Allow: POST); the body is a JSON-RPC error.', schemaRef('JsonRpcMessage'), {
        Allow: { schema: { type: 'string', const: 'POST' } },
      }),
      '429': responseRef('RateLimited'),
    },
  };
}

function startOperation(type: 'fast' | 'deep') {
  return {
    operationId: type === 'fast' ? 'startFastScan' : 'startDeepScan',
    tags: ['polling'],
    summary: `Start a ${type} scan of the caller's address`,
    description:
      `Queues a ${type} scan of the address the request comes from, then poll GET /v1/${type}. ` +
      'No body. When a scan of the same address and type is already in flight, no new scan starts: ' +
      'the response reflects that scan, with its chunk counters.',
    parameters: [{ $ref: '#/components/parameters/X-Callback-Url' }],
    responses: {
      '200': jsonResponse('The scan is queued, or the request joined the scan in flight.', schemaRef('ScanQueued')),
      '403': responseRef('NotAvailable'),
      '422': responseRef('InvalidScanRequest'),
      ...notFoundAndMethod,
    },
  };
}

function resultOperation(type: 'fast' | 'deep') {
  return {
    operationId: type === 'fast' ? 'getFastScan' : 'getDeepScan',
    tags: ['polling'],
    summary: `The caller's latest ${type} scan`,
    description:
      `Returns the state or result of the caller's ${type} scan. Poll until the status is \`complete\`, ` +
      '`incomplete` or `failed`. A failed scan is a 200 with `fail_reason`, not an HTTP error; ' +
      '`none` means no scan exists (or its result expired).',
    responses: {
      '200': jsonResponse('The scan, whatever its status.', schemaRef('ScanResult'), {
        'X-Scan-Duration-Ms': headerRef('X-Scan-Duration-Ms'),
      }),
      ...notFoundAndMethod,
    },
  };
}

function streamOperation(type: 'fast' | 'deep') {
  return {
    operationId: type === 'fast' ? 'streamFastScan' : 'streamDeepScan',
    tags: ['streaming'],
    summary: `Start or attach to a ${type} scan and stream its progress`,
    description:
      `Starts a ${type} scan of the caller's address unless one is in flight (including one started by ` +
      `POST /v1/${type}), in which case the stream attaches to it. A start that is refused returns a JSON ` +
      'Error instead of a stream.',
    responses: {
      '200': responseRef('ScanEventStream'),
      '403': responseRef('NotAvailable'),
      '422': responseRef('InvalidTarget'),
      ...notFoundAndMethod,
    },
  };
}

/** The OpenAPI 3.1.0 document of the service (interface version 1.0.0). */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'selfscan',
    version: '1.0.0',
    summary: 'Tells a server which of its TCP ports the outside world can reach.',
    description: [
      'The scan target is always the public address the request comes from, taken from the connection. ' +
        'No parameter, header or body selects another target. IPv4 and IPv6 are supported; ' +
        'IPv4-mapped IPv6 addresses are scanned as IPv4.',
      `Scans are TCP only. \`fast\` covers ${SCAN_PROFILES.fast.ports.length} common ports, \`deep\` all ` +
        `${SCAN_PROFILES.deep.ports.length}; port 25 is in every scan.`,
      'Polling (v1): POST starts a scan, GET polls it. Streaming (v2): one GET starts or attaches to a scan ' +
        'and streams its progress as Server-Sent Events.',
      'Requests for the same address and scan type while a scan is in flight coalesce onto that scan. ' +
        'Results expire 24 hours after completion. An `incomplete` result (`partial: true`) holds what was ' +
        'found before the host proved too slow or too filtered; it is never a full scan.',
      'No authentication. Every response carries the X-RateLimit-* headers of the per-IP edge limit (or, on a ' +
        '429, of the limit that refused); a refused request is a 429 with Retry-After. An operator who turns ' +
        'the edge limit off (max 0) gets responses without them. Every error is a JSON Error object.',
      'JSON responses may be gzip-compressed (`Content-Encoding: gzip`) when the request sends ' +
        '`Accept-Encoding: gzip`.',
    ].join('\n\n'),
    license: { name: 'MIT', identifier: 'MIT' },
  },
  tags: [
    { name: 'polling', description: 'v1: start with POST, poll with GET.' },
    { name: 'streaming', description: 'v2: one GET streams the scan as Server-Sent Events.' },
    { name: 'agents', description: 'The Model Context Protocol endpoint for AI agents.' },
    { name: 'meta', description: 'This description.' },
  ],
  paths: {
    '/v1/fast': { post: startOperation('fast'), get: resultOperation('fast') },
    '/v1/deep': { post: startOperation('deep'), get: resultOperation('deep') },
    '/v2/fast': { get: streamOperation('fast') },
    '/v2/deep': { get: streamOperation('deep') },
    '/.well-known/selfscan-webhook-key': {
      get: {
        operationId: 'getWebhookKey',
        tags: ['meta'],
        summary: 'The public key that signs webhooks',
        description: 'Verify `X-Selfscan-Signature` (base64 Ed25519) over the bytes `<X-Selfscan-Timestamp>.<raw body>` with this key.',
        responses: {
          '200': jsonResponse('The Ed25519 public key, as a JWK (RFC 8037) and as PEM.', schemaRef('WebhookKey')),
          ...notFoundAndMethod,
        },
      },
    },
    '/mcp': {
      post: {
        operationId: 'mcp',
        tags: ['agents'],
        summary: 'Model Context Protocol (Streamable HTTP): tools fast_scan and deep_scan',
        description:
          'Stateless MCP over Streamable HTTP (no Mcp-Session-Id, no key). Tools `fast_scan` and `deep_scan` take ' +
          '`{ "rescan"?: boolean }` and scan only the caller\'s own address. A call does not block: it starts a scan ' +
          'when none is in flight and no unexpired result exists (or when `rescan` is true), else it returns the ' +
          'scan in flight or the last result; agents poll by calling again. `structuredContent` is shaped like the ' +
          'ScanResult of that status plus `message` and, while not finished, `poll_after_seconds`. A refused start ' +
          '(invalid_target, not_available, rate_limited) is a tool result with `isError: true` carrying `error`, ' +
          '`reason` and `retry_after`. With a progress token, the call stays open (up to 25 s) and sends ' +
          '`notifications/progress` (progress = chunks done, total = all chunks). The same target rule, opt-out, ' +
          'rate limits (shared counters) and coalescing apply as on REST; every request counts against the edge limit.',
        requestBody: { required: true, content: { 'application/json': { schema: schemaRef('JsonRpcMessage') } } },
        responses: {
          '200': {
            description: 'The JSON-RPC response; as an event stream when progress notifications come first.',
            headers: rateLimitHeaders,
            content: { 'application/json': { schema: schemaRef('JsonRpcMessage') }, 'text/event-stream': { schema: { type: 'string' } } },
          },
          '202': { description: 'A notification or response was accepted.', headers: rateLimitHeaders },
          '400': jsonResponse('Malformed JSON or not a JSON-RPC message.', schemaRef('JsonRpcMessage')),
          '413': jsonResponse('The body is larger than 1 MiB.', schemaRef('JsonRpcMessage')),
          '415': jsonResponse('The body is not application/json.', schemaRef('JsonRpcMessage')),
          '404': responseRef('NotFound'),
          '429': responseRef('RateLimited'),
          '503': responseRef('Unavailable'),
        },
      },
      get: mcpNotAllowed('GET'),
      delete: mcpNotAllowed('DELETE'),
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
  },
  webhooks: {
    scanFinished: {
      post: {
        summary: 'Sent to X-Callback-Url when the scan ends',
        description:
          'One POST per X-Callback-Url given on a v1 POST (coalesced POSTs each get their own), when the scan ' +
          'completes (`scan.complete`, also for `incomplete` results) or fails (`scan.failed`). Sent only to ' +
          'public addresses, no redirects followed, 5 s per attempt. Network errors, timeouts, 5xx and 429 ' +
          'are retried after 10 s, 1 min, 5 min, 30 min and 2 h, then given up; any other answer ends it. ' +
          'A delivery owed when the service stops is made after it restarts. The delivery id stays the same ' +
          'on every retry: receivers use it to ignore duplicates.',
        parameters: [
          { name: 'X-Selfscan-Delivery', in: 'header', required: true, schema: { type: 'string', format: 'uuid' }, description: 'Unique per delivery, the same on retries.' },
          { name: 'X-Selfscan-Event', in: 'header', required: true, schema: { type: 'string', enum: ['scan.complete', 'scan.failed'] } },
          { name: 'X-Selfscan-Timestamp', in: 'header', required: true, schema: { type: 'integer' }, description: 'Unix seconds of this attempt; part of what is signed.' },
          { name: 'X-Selfscan-Signature', in: 'header', required: true, schema: { type: 'string' }, description: 'Base64 Ed25519 signature of `<timestamp>.<raw body>`; key at /.well-known/selfscan-webhook-key.' },
          { name: 'User-Agent', in: 'header', required: true, schema: { type: 'string', pattern: '^selfscan/' } },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: schemaRef('WebhookPayload') } } },
        responses: { '200': { description: 'Any 2xx answer counts as delivered.' } },
      },
    },
  },
  components: {
    schemas: {
      JsonRpcMessage: {
        type: 'object',
        description: 'A JSON-RPC 2.0 request, notification or response (MCP), or an error response.',
        required: ['jsonrpc'],
        properties: {
          jsonrpc: { const: '2.0' },
          id: { type: ['string', 'integer', 'null'] },
          method: { type: 'string' },
          params: { type: 'object' },
          result: { type: 'object' },
          error: {
            type: 'object',
            required: ['code', 'message'],
            properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
          },
        },
      },
      WebhookPayload: {
        type: 'object',
        additionalProperties: false,
        required: ['event', 'result'],
        properties: {
          event: { type: 'string', enum: ['scan.complete', 'scan.failed'] },
          result: { oneOf: [schemaRef('ScanResultComplete'), schemaRef('ScanResultIncomplete'), schemaRef('ScanResultFailed')] },
        },
      },
      WebhookKey: {
        type: 'object',
        additionalProperties: false,
        required: ['algorithm', 'jwk', 'pem', 'signed'],
        properties: {
          algorithm: { const: 'Ed25519' },
          jwk: {
            type: 'object',
            required: ['kty', 'crv', 'x'],
            properties: { kty: { const: 'OKP' }, crv: { const: 'Ed25519' }, x: { type: 'string' }, use: { const: 'sig' }, alg: { const: 'EdDSA' } },
          },
          pem: { type: 'string', pattern: '^-----BEGIN PUBLIC KEY-----' },
          signed: { type: 'string', description: 'What the signature covers.' },
        },
      },
      IpAddress: {
        type: 'string',
        description: "The scanned address: the caller's.",
        anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }],
      },
      ScanType: {
        type: 'string',
        enum: [...SCAN_TYPES],
        description: `\`fast\`: ${SCAN_PROFILES.fast.ports.length} ports; \`deep\`: ${SCAN_PROFILES.deep.ports.length} ports.`,
      },
      Error: {
        type: 'object',
        required: ['error', 'reason'],
        additionalProperties: false,
        properties: {
          error: {
            type: 'string',
            enum: [...ERROR_CODES],
            description:
              '`not_found` (404), `method_not_allowed` (405), `not_available` (403: the address is opted out or ' +
              'restricted), `invalid_target` (422: private, loopback or otherwise non-routable address), ' +
              '`invalid_callback_url` (422), `rate_limited` (429), `unavailable` (503: the service is shutting down).',
          },
          reason: { type: 'string', description: 'Explanation for people.' },
          retry_after: count('Seconds until the request may be retried (rate limiting).'),
        },
      },
      Port: {
        type: 'object',
        required: ['port', 'state', 'service', 'banner'],
        additionalProperties: false,
        properties: {
          port: { type: 'integer', minimum: 1, maximum: 65535 },
          state: { type: 'string', enum: ['open', 'closed', 'filtered'] },
          service: { type: ['string', 'null'], description: 'IANA service name of the port, or null.' },
          banner: { type: ['string', 'null'], description: 'What the service said (printable, truncated), or null.' },
        },
      },
      ScanQueued: {
        type: 'object',
        description:
          'A started scan: `queued` when fresh; `queued` or `running` with the chunk counters when the ' +
          'request coalesced onto the scan in flight.',
        required: ['ip', 'scan_type', 'status', 'eta_seconds'],
        additionalProperties: false,
        dependentRequired: { chunks_complete: ['total_chunks'], total_chunks: ['chunks_complete'] },
        properties: {
          ip,
          scan_type: scanType,
          status: inFlightStatus,
          eta_seconds: etaSeconds,
          chunks_complete: chunksComplete,
          total_chunks: totalChunks,
        },
      },
      ScanResultNone: {
        type: 'object',
        description: 'No scan of this type exists for the address (or its result expired).',
        required: ['ip', 'scan_type', 'status'],
        additionalProperties: false,
        properties: { ip, scan_type: scanType, status: { const: 'none' } },
      },
      ScanResultInFlight: {
        type: 'object',
        description: 'A scan waiting or in progress.',
        required: ['ip', 'scan_type', 'status', 'queue_position', 'chunks_complete', 'total_chunks', 'eta_seconds'],
        additionalProperties: false,
        properties: {
          ip,
          scan_type: scanType,
          status: inFlightStatus,
          queue_position: queuePosition,
          chunks_complete: chunksComplete,
          total_chunks: totalChunks,
          eta_seconds: etaSeconds,
        },
      },
      ScanResultComplete: {
        type: 'object',
        description: 'A finished scan of the whole port range.',
        required: resultRequired,
        additionalProperties: false,
        properties: { ...resultFields, status: { const: 'complete' } },
      },
      ScanResultIncomplete: {
        type: 'object',
        description:
          'A partial result: the host was too slow or too filtered to finish the range. The port lists hold ' +
          'what was found; never treat it as a complete scan.',
        required: [...resultRequired, 'partial', 'chunks_complete', 'total_chunks'],
        additionalProperties: false,
        properties: {
          ...resultFields,
          status: { const: 'incomplete' },
          partial: { const: true },
          chunks_complete: chunksComplete,
          total_chunks: totalChunks,
        },
      },
      ScanResultFailed: {
        type: 'object',
        description: 'A scan that did not complete.',
        required: ['ip', 'scan_type', 'status', 'chunks_complete', 'total_chunks', 'fail_reason'],
        additionalProperties: false,
        properties: {
          ip,
          scan_type: scanType,
          status: { const: 'failed' },
          chunks_complete: chunksComplete,
          total_chunks: totalChunks,
          fail_reason: {
            type: 'string',
            enum: [...FAIL_REASONS],
            description: FAIL_REASONS.map((r) => `\`${r}\`: ${FAIL_REASON_TEXT[r]}.`).join(' '),
          },
        },
      },
      ScanResult: {
        description: 'The state or result of a scan, by `status`.',
        oneOf: [
          schemaRef('ScanResultNone'),
          schemaRef('ScanResultInFlight'),
          schemaRef('ScanResultComplete'),
          schemaRef('ScanResultIncomplete'),
          schemaRef('ScanResultFailed'),
        ],
        discriminator: {
          propertyName: 'status',
          mapping: {
            none: '#/components/schemas/ScanResultNone',
            queued: '#/components/schemas/ScanResultInFlight',
            running: '#/components/schemas/ScanResultInFlight',
            complete: '#/components/schemas/ScanResultComplete',
            incomplete: '#/components/schemas/ScanResultIncomplete',
            failed: '#/components/schemas/ScanResultFailed',
          },
        },
      },
      SseQueued: {
        type: 'object',
        description: 'Payload of `scan:queued`: the scan was accepted, or the stream attached to the scan in flight.',
        required: ['ip', 'scan_type', 'status', 'queue_position', 'eta_seconds', 'chunks_complete', 'total_chunks'],
        additionalProperties: false,
        properties: {
          ip,
          scan_type: scanType,
          status: inFlightStatus,
          queue_position: queuePosition,
          eta_seconds: etaSeconds,
          chunks_complete: chunksComplete,
          total_chunks: totalChunks,
        },
      },
      SseProgress: {
        type: 'object',
        description: 'Payload of `scan:progress`.',
        required: [
          'ip',
          'scan_type',
          'status',
          'queue_position',
          'chunks_complete',
          'total_chunks',
          'ports_open',
          'filtered_count',
        ],
        additionalProperties: false,
        properties: {
          ip,
          scan_type: scanType,
          status: inFlightStatus,
          queue_position: queuePosition,
          chunks_complete: chunksComplete,
          total_chunks: totalChunks,
          ports_open: portList('Open ports found so far.'),
          filtered_count: count('Filtered ports found so far.'),
        },
      },
    },
    headers: {
      'X-RateLimit-Limit': {
        description: 'Maximum requests in the current window.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
      'X-RateLimit-Remaining': {
        description: 'Requests remaining in the current window.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
      'X-RateLimit-Reset': {
        description: 'When the current window resets, Unix seconds.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
      'Retry-After': {
        description: 'Seconds until the limit resets.',
        required: true,
        schema: { type: 'integer', minimum: 0 },
      },
      'X-Scan-Duration-Ms': {
        description: 'Scan duration in milliseconds; present when the status is `complete`.',
        schema: { type: 'integer', minimum: 0 },
      },
    },
    parameters: {
      'X-Callback-Url': {
        name: 'X-Callback-Url',
        in: 'header',
        required: false,
        description:
          'Webhook: the service POSTs a signed notification to this URL when the scan completes or fails ' +
          '(see `webhooks.scanFinished`). Polling works whether or not it is given. It must be an absolute ' +
          'http or https URL of at most 2048 characters without user name or password; otherwise the POST ' +
          'is a 422 `invalid_callback_url`.',
        schema: { type: 'string', format: 'uri', maxLength: 2048 },
      },
    },
    responses: {
      NotFound: errorResponse('No such path.', ['not_found']),
      MethodNotAllowed: errorResponse('The path does not support this method.', ['method_not_allowed']),
      NotAvailable: errorResponse('The address is opted out or restricted.', ['not_available']),
      InvalidTarget: errorResponse('The address is private, loopback or otherwise non-routable.', ['invalid_target']),
      InvalidScanRequest: errorResponse('The address is non-routable, or X-Callback-Url is unacceptable.', [
        'invalid_target',
        'invalid_callback_url',
      ]),
      RateLimited: errorResponse('Too many requests.', ['rate_limited'], { 'Retry-After': headerRef('Retry-After') }),
      Unavailable: errorResponse('The service is shutting down; retry later.', ['unavailable']),
      ScanEventStream: {
        description: [
          'Server-Sent Events. In order: `scan:queued` once (status `running` when the stream attached to a ' +
            'scan in flight); `scan:progress` as chunks finish, zero or more times; then one terminal event, ' +
            '`scan:complete` (status `complete` or `incomplete`) or `scan:failed`, after which the stream closes.',
          'Each event has an `id:` line with a number that increases with each event of the scan, an `event:` ' +
            'line with its name and one `data:` line with the JSON payload. Comment lines `: keep-alive` are sent ' +
            'while the stream is idle (every 15 s by default) so intermediaries keep the connection open.',
          'Payloads: `scan:queued` SseQueued, `scan:progress` SseProgress, `scan:complete` ScanResultComplete ' +
            'or ScanResultIncomplete, `scan:failed` ScanResultFailed (also in `x-sse-events`).',
        ].join('\n\n'),
        headers: rateLimitHeaders,
        content: {
          'text/event-stream': {
            schema: { type: 'string' },
            'x-sse-events': {
              'scan:queued': schemaRef('SseQueued'),
              'scan:progress': schemaRef('SseProgress'),
              'scan:complete': {
                oneOf: [schemaRef('ScanResultComplete'), schemaRef('ScanResultIncomplete')],
                discriminator: {
                  propertyName: 'status',
                  mapping: {
                    complete: '#/components/schemas/ScanResultComplete',
                    incomplete: '#/components/schemas/ScanResultIncomplete',
                  },
                },
              },
              'scan:failed': schemaRef('ScanResultFailed'),
            },
          },
        },
      },
    },
  },
};

/** `openApiDocument` as served at GET /openapi.json. */
export const openApiJson: string = JSON.stringify(openApiDocument);
