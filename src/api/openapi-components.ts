// The OpenAPI document's reusable headers, parameters and responses (its
// schemas are generated: openapi-schemas.ts), and the helpers the
// operations use to point at them.
import { ErrorBody, type ErrorCode } from './error-body.js';
import { componentSchemas, schemaRef } from './openapi-schemas.js';
import { SSE_EVENTS } from './sse-events.js';

export const headerRef = (name: keyof typeof headers) => ({ $ref: `#/components/headers/${name}` });
export const responseRef = (name: keyof typeof responses) => ({ $ref: `#/components/responses/${name}` });

const nonNegative = { type: 'integer', minimum: 0 };

const headers = {
  'X-RateLimit-Limit': { description: 'Maximum requests in the current window.', required: true, schema: nonNegative },
  'X-RateLimit-Remaining': { description: 'Requests remaining in the current window.', required: true, schema: nonNegative },
  'X-RateLimit-Reset': { description: 'When the current window resets, Unix seconds.', required: true, schema: nonNegative },
  'Retry-After': { description: 'Seconds until the limit resets.', required: true, schema: nonNegative },
  'X-Scan-Duration-Ms': { description: 'Scan duration in milliseconds; present when the status is `complete`.', schema: nonNegative },
};

/** The X-RateLimit-* headers every response carries (while the edge limit is on). */
export const rateLimitHeaders = {
  'X-RateLimit-Limit': headerRef('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': headerRef('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': headerRef('X-RateLimit-Reset'),
};

/** A JSON response with the rate-limit headers and `extraHeaders`. */
export function jsonResponse(description: string, schema: object, extraHeaders: object = {}) {
  return unlimitedJsonResponse(description, schema, { ...rateLimitHeaders, ...extraHeaders });
}

/** A JSON response of a path outside the edge limit: no X-RateLimit-* headers. */
export function unlimitedJsonResponse(description: string, schema: object, headers: object = {}) {
  return { description, ...(Object.keys(headers).length > 0 ? { headers } : {}), content: { 'application/json': { schema } } };
}

/** The JSON Error body whose `error` is one of `codes`. */
export function errorSchema(codes: readonly ErrorCode[]): object {
  const error = codes.length === 1 ? { const: codes[0] } : { enum: codes };
  return { allOf: [schemaRef(ErrorBody), { type: 'object', properties: { error } }] };
}

/** A JSON Error response whose `error` is one of `codes`. */
function errorResponse(description: string, codes: readonly ErrorCode[], extraHeaders: object = {}) {
  return jsonResponse(description, errorSchema(codes), extraHeaders);
}

/** The payload schema of each stream event, by event name. */
const sseEvents = Object.fromEntries(Object.entries(SSE_EVENTS).map(([event, payload]) => [event, schemaRef(payload)]));

const responses = {
  NotFound: errorResponse('No such path.', ['not_found']),
  MethodNotAllowed: errorResponse('The path does not support this method.', ['method_not_allowed']),
  NotAvailable: errorResponse('The address is opted out or restricted.', ['not_available']),
  InvalidTarget: errorResponse('The address is private, loopback or otherwise non-routable, or `regions` is unacceptable.', [
    'invalid_target',
    'invalid_regions',
  ]),
  InvalidScanRequest: errorResponse('The address is non-routable, X-Callback-Url is unacceptable, or `regions` is.', [
    'invalid_target',
    'invalid_callback_url',
    'invalid_regions',
  ]),
  InvalidRegions: errorResponse('`regions` names an unknown region, is malformed, or this server runs in one place.', ['invalid_regions']),
  RateLimited: errorResponse('Too many requests.', ['rate_limited'], { 'Retry-After': headerRef('Retry-After') }),
  Unavailable: errorResponse('The service is shutting down, or could not handle the request; retry later.', ['unavailable']),
  ScanEventStream: {
    description: [
      'Server-Sent Events. In order: `scan:queued` once (status `running` when the stream attached to a ' +
        'scan in flight); `scan:progress` as chunks finish, zero or more times; then one terminal event, ' +
        '`scan:complete` (status `complete` or `incomplete`) or `scan:failed`, after which the stream closes.',
      'Each event has an `id:` line with a number that increases with each event of the scan, an `event:` ' +
        'line with its name and one `data:` line with the JSON payload. Comment lines `: keep-alive` are sent ' +
        'while the stream is idle (every 15 s by default) so intermediaries keep the connection open.',
      'Payloads (also in `x-sse-events`): ' +
        Object.entries(sseEvents)
          .map(([event, { $ref }]) => `\`${event}\` ${$ref.split('/').at(-1)}`)
          .join(', ') +
        '.',
    ].join('\n\n'),
    headers: rateLimitHeaders,
    content: {
      'text/event-stream': {
        schema: { type: 'string' },
        'x-sse-events': sseEvents,
      },
    },
  },
};

/** What any request can meet: wrong path or method, the edge rate limit, a stopping service. */
export const notFoundAndMethod = {
  '404': responseRef('NotFound'),
  '405': responseRef('MethodNotAllowed'),
  '429': responseRef('RateLimited'),
  '503': responseRef('Unavailable'),
};

/** The document's components. */
export const components = {
  schemas: componentSchemas,
  headers,
  parameters: {
    'X-Callback-Url': {
      name: 'X-Callback-Url',
      in: 'header',
      required: false,
      description:
        'Webhook: the service POSTs a signed notification to this URL when the scan completes or fails ' +
        '(see `webhooks.scanFinished`). Polling works whether or not it is given. It must be an absolute ' +
        'http or https URL of at most 2048 characters without user name or password, and a host that is ' +
        'an IP literal must be a public address; otherwise the POST is a 422 `invalid_callback_url`. ' +
        'Registrations are rate-limited per caller (`limits.webhooksPerIp`): over the limit the POST is a 429 ' +
        'and nothing starts. A POST without it is not charged.',
      schema: { type: 'string', format: 'uri', maxLength: 2048 },
    },
    regions: {
      name: 'regions',
      in: 'query',
      required: false,
      description:
        'Scan from several regions at once (cluster deployments, since 1.2): `all` (every region with a live scanner ' +
        'node) or region names separated by commas (`NL,FR`). The target is still only the caller: a region is where ' +
        'the scan looks from. Each region counts as one scan against the scan limits, all or none (Retry-After says ' +
        'when all of them fit; more regions than a limit ever allows is a 422 `invalid_regions`). Such a scan is kept apart from the scan from one place: poll and stream it with the ' +
        'same `regions`. An unknown region is a 422 `invalid_regions` naming the known ones, a known region with no ' +
        'live scanner node a 503, and any `regions` on a single-process server a 422 `invalid_regions`.',
      schema: { type: 'string', pattern: '^(all|[A-Za-z0-9_-]{1,32}(,[A-Za-z0-9_-]{1,32}){0,31})$' },
      example: 'NL,FR',
    },
  },
  responses,
};
