// The shapes of hostile or broken HTTP/1.1 requests, each with what the
// server does with it: a status, or a close that uWebSockets.js forces
// (at once on what its parser rejects; after its 10 s idle timeout on what
// it takes for an unfinished request). Shared by the hostile-HTTP test and
// bench/fuzz/fuzz.ts; the README's operations section lists the closes.

/** What the server does with a shape. */
export type Outcome =
  /** Answers these statuses in order; `close`: then closes the connection. */
  | { statuses: number[]; close: boolean }
  /** Closes without an answer at once: uWS's parser rejects the request. */
  | { closeAtOnce: true }
  /** Closes without an answer when uWS's idle timeout ends its wait for a request it cannot parse. */
  | { closeOnIdle: true };

export interface Shape {
  name: string;
  bytes: string;
  outcome: Outcome;
}

/** How long uWS waits for a whole request: HTTP_IDLE_TIMEOUT_S (10 s), checked on a 4 s tick, plus slack. */
export const IDLE_CLOSE_MS = 16_000;
/** How soon an answer or a forced close comes on loopback. */
export const PROMPT_MS = 1_000;

const H = 'Host: selfscan.test\r\n';

/** A request line with headers (each `Name: value`) and a body. */
export function request(line: string, headers: readonly string[] = [H.trimEnd()], body = ''): string {
  return `${line}\r\n${headers.map((header) => `${header}\r\n`).join('')}\r\n${body}`;
}

const answer = (...statuses: number[]): Outcome => ({ statuses, close: false });
const refuse = (status: number): Outcome => ({ statuses: [status], close: true });
const atOnce: Outcome = { closeAtOnce: true };
const onIdle: Outcome = { closeOnIdle: true };

const post = (headers: string[], body: string): string => request('POST /nope HTTP/1.1', [H.trimEnd(), ...headers], body);

export const SHAPES: readonly Shape[] = [
  { name: 'unknown method', bytes: request('FOO /openapi.json HTTP/1.1'), outcome: atOnce },
  { name: 'lower-case method', bytes: request('get /openapi.json HTTP/1.1'), outcome: atOnce },
  { name: 'HTTP/1.0 request', bytes: request('GET /openapi.json HTTP/1.0'), outcome: onIdle },
  { name: 'HTTP/2 version in an HTTP/1 request line', bytes: request('GET /openapi.json HTTP/2.0'), outcome: onIdle },
  { name: 'HTTP/1.1 without Host', bytes: request('GET /openapi.json HTTP/1.1', ['Accept: */*']), outcome: atOnce },
  { name: 'HTTP/1.1 without any header', bytes: request('GET /openapi.json HTTP/1.1', []), outcome: onIdle },
  {
    name: 'head over 16 KiB in one read',
    bytes: request('GET /openapi.json HTTP/1.1', [H.trimEnd(), `X-Big: ${'a'.repeat(20 * 1024)}`]),
    outcome: refuse(431),
  },
  {
    name: '10,000 header lines',
    bytes: request('GET /openapi.json HTTP/1.1', [H.trimEnd(), ...Array.from({ length: 10_000 }, (_, i) => `X-${i}: v`)]),
    outcome: atOnce,
  },
  {
    name: 'more header lines than uWS keeps (60) in under 4 KiB',
    bytes: request('GET /openapi.json HTTP/1.1', [H.trimEnd(), ...Array.from({ length: 60 }, (_, i) => `X-${i}: v`)]),
    outcome: onIdle,
  },
  { name: 'invalid Content-Length', bytes: post(['Content-Length: abc'], ''), outcome: atOnce },
  { name: 'negative Content-Length', bytes: post(['Content-Length: -1'], ''), outcome: atOnce },
  { name: 'conflicting Content-Length lines', bytes: post(['Content-Length: 0', 'Content-Length: 5'], 'hello'), outcome: refuse(400) },
  { name: 'conflicting Content-Length list', bytes: post(['Content-Length: 5, 0'], 'hello'), outcome: atOnce },
  { name: 'identical Content-Length lines', bytes: post(['Content-Length: 5', 'Content-Length: 5'], 'hello'), outcome: answer(404) },
  { name: 'smuggling CL.TE', bytes: post(['Content-Length: 6', 'Transfer-Encoding: chunked'], '0\r\n\r\nG'), outcome: atOnce },
  { name: 'smuggling TE.CL', bytes: post(['Transfer-Encoding: chunked', 'Content-Length: 3'], '8\r\nSMUGGLED\r\n0\r\n\r\n'), outcome: atOnce },
  { name: 'Transfer-Encoding not ending in chunked', bytes: post(['Transfer-Encoding: chunked, identity'], '0\r\n\r\n'), outcome: refuse(400) },
  { name: 'obfuscated Transfer-Encoding value', bytes: post(['Transfer-Encoding: xchunked'], '0\r\n\r\n'), outcome: refuse(400) },
  { name: 'obfuscated Transfer-Encoding name (space before colon)', bytes: post(['Transfer-Encoding : chunked'], '0\r\n\r\n'), outcome: onIdle },
  { name: 'Transfer-Encoding chunked, well formed', bytes: post(['Transfer-Encoding: chunked'], '5\r\nhello\r\n0\r\n\r\n'), outcome: answer(404) },
  { name: 'bad chunk size', bytes: post(['Transfer-Encoding: chunked'], 'zz\r\nhello\r\n0\r\n\r\n'), outcome: atOnce },
  { name: 'NUL in the path', bytes: request('GET /open\0api.json HTTP/1.1'), outcome: onIdle },
  { name: 'absolute-form target', bytes: request('GET http://selfscan.test/openapi.json HTTP/1.1'), outcome: onIdle },
  { name: 'asterisk-form target', bytes: request('OPTIONS * HTTP/1.1'), outcome: onIdle },
  { name: 'HTTP/2 preface', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', outcome: onIdle },
  { name: 'HEAD of a GET resource', bytes: request('HEAD /openapi.json HTTP/1.1'), outcome: answer(200) },
  { name: 'wrong method on a route', bytes: request('DELETE /openapi.json HTTP/1.1'), outcome: answer(405) },
  {
    name: 'three pipelined GETs',
    bytes: request('GET /openapi.json HTTP/1.1') + request('GET /nope HTTP/1.1') + request('GET /.well-known/selfscan-webhook-key HTTP/1.1'),
    outcome: answer(200, 404, 200),
  },
  {
    name: 'three pipelined GETs accepting gzip',
    bytes: request('GET /openapi.json HTTP/1.1', [H.trimEnd(), 'Accept-Encoding: gzip']).repeat(3),
    outcome: answer(200, 200, 200),
  },
];
