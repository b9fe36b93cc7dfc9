// Every error the interface answers with (spec 2.4 and 7): the codes, the
// HTTP status of each, and the JSON Error object. The one table REST, MCP
// and the OpenAPI document read.
import * as z from 'zod';

/** Each error code: its HTTP status line, and when it is answered. */
export const ERROR_CODES = {
  bad_request: {
    status: '400 Bad Request',
    when: 'the request cannot be read safely (conflicting Content-Length, Content-Length beside Transfer-Encoding, Transfer-Encoding not ending in chunked, a bad chunk size); the connection is closed',
  },
  request_timeout: { status: '408 Request Timeout', when: 'the request head or body did not arrive in time; the connection is closed' },
  headers_too_large: { status: '431 Request Header Fields Too Large', when: 'the request head is over 16 KiB' },
  not_found: { status: '404 Not Found', when: 'no such path' },
  method_not_allowed: { status: '405 Method Not Allowed', when: 'the path does not support this method' },
  not_available: { status: '403 Forbidden', when: 'the address is opted out or restricted' },
  invalid_target: { status: '422 Unprocessable Entity', when: 'private, loopback or otherwise non-routable address' },
  invalid_callback_url: { status: '422 Unprocessable Entity', when: 'X-Callback-Url is unacceptable' },
  invalid_regions: {
    status: '422 Unprocessable Entity',
    when: '`regions` names a region this cluster does not know, is malformed, asks for more regions than the scan limits ever allow, or was sent to a single-process server (it scans from one place)',
  },
  rate_limited: { status: '429 Too Many Requests', when: 'too many requests; see retry_after' },
  unavailable: { status: '503 Service Unavailable', when: 'the service is shutting down or could not handle the request' },
  not_implemented: { status: '501 Not Implemented', when: 'the request method is not one the server knows' },
  version_not_supported: { status: '505 HTTP Version Not Supported', when: 'the request is not HTTP/1.x' },
} as const satisfies Record<string, { status: string; when: string }>;

const codes = Object.keys(ERROR_CODES) as readonly (keyof typeof ERROR_CODES)[];

/** An error code. */
export const ErrorCode = z.enum(codes).meta({
  description: `${codes.map((code) => `\`${code}\` (${ERROR_CODES[code].status.slice(0, 3)}: ${ERROR_CODES[code].when})`).join(', ')}.`,
});
export type ErrorCode = z.output<typeof ErrorCode>;

/** The JSON body of every error answer. */
export const ErrorBody = z.strictObject({
  error: ErrorCode,
  reason: z.string().meta({ description: 'Explanation for people.' }),
  retry_after: z.int().min(0).optional().meta({ description: 'Seconds until the request may be retried (rate limiting).' }),
});
export type ErrorBody = z.output<typeof ErrorBody>;
