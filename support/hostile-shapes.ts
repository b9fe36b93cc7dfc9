// The shapes of hostile or broken HTTP/1.x requests, each with what each
// front does with it: a status, or a close that uWebSockets.js forces (at
// once on what its parser rejects; after its 10 s idle timeout on what it
// takes for an unfinished request). Node's front answers every shape, as
// RFC 9110 and 9112 say: where it differs from uWS, `node` says how.
// Shared by the hostile-HTTP test and bench/fuzz/fuzz.ts; the README's
// operations section lists what each front does.

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
  /** What the uWS front does. */
  outcome: Outcome;
  /** What the Node front does, where it differs. */
  node?: Outcome;
}

/** What `front` does with `shape`. */
export function outcomeOn(shape: Shape, front: 'uws' | 'node'): Outcome {
  return front === 'node' ? (shape.node ?? shape.outcome) : shape.outcome;
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
/** Answers these statuses in order, then closes (HTTP/1.0 without keep-alive, or a refusal behind answers). */
const answerThenClose = (...statuses: number[]): Outcome => ({ statuses, close: true });
const refuse = (status: number): Outcome => ({ statuses: [status], close: true });
const atOnce: Outcome = { closeAtOnce: true };
const onIdle: Outcome = { closeOnIdle: true };

const post = (headers: string[], body: string): string => request('POST /nope HTTP/1.1', [H.trimEnd(), ...headers], body);

export const SHAPES: readonly Shape[] = [
  { name: 'unknown method', bytes: request('FOO /openapi.json HTTP/1.1'), outcome: atOnce, node: refuse(501) },
  { name: 'lower-case method', bytes: request('get /openapi.json HTTP/1.1'), outcome: atOnce, node: refuse(501) },
  { name: 'HTTP/1.0 request', bytes: request('GET /openapi.json HTTP/1.0'), outcome: onIdle, node: answerThenClose(200) },
  { name: 'HTTP/1.0 without any header', bytes: request('GET /openapi.json HTTP/1.0', []), outcome: onIdle, node: answerThenClose(200) },
  { name: 'HTTP/1.0 OPTIONS (a load balancer health check)', bytes: request('OPTIONS / HTTP/1.0', []), outcome: onIdle, node: answerThenClose(405) },
  {
    name: 'HTTP/1.0 asking for keep-alive, then another request',
    bytes: request('GET /openapi.json HTTP/1.0', ['Connection: keep-alive']) + request('GET /nope HTTP/1.0', []),
    outcome: onIdle,
    node: answerThenClose(200, 404),
  },
  { name: 'HTTP/2 version in an HTTP/1 request line', bytes: request('GET /openapi.json HTTP/2.0'), outcome: onIdle, node: refuse(505) },
  { name: 'HTTP/1.1 without Host', bytes: request('GET /openapi.json HTTP/1.1', ['Accept: */*']), outcome: atOnce, node: refuse(400) },
  { name: 'HTTP/1.1 without any header', bytes: request('GET /openapi.json HTTP/1.1', []), outcome: onIdle, node: refuse(400) },
  {
    name: 'head over 16 KiB in one read',
    bytes: request('GET /openapi.json HTTP/1.1', [H.trimEnd(), `X-Big: ${'a'.repeat(20 * 1024)}`]),
    outcome: refuse(431),
  },
  {
    name: '10,000 header lines',
    bytes: request('GET /openapi.json HTTP/1.1', [H.trimEnd(), ...Array.from({ length: 10_000 }, (_, i) => `X-${i}: v`)]),
    outcome: atOnce,
    node: refuse(431),
  },
  {
    name: 'more header lines than uWS keeps (60) in under 4 KiB',
    bytes: request('GET /openapi.json HTTP/1.1', [H.trimEnd(), ...Array.from({ length: 60 }, (_, i) => `X-${i}: v`)]),
    outcome: onIdle,
    node: answer(200),
  },
  { name: 'invalid Content-Length', bytes: post(['Content-Length: abc'], ''), outcome: atOnce, node: refuse(400) },
  { name: 'negative Content-Length', bytes: post(['Content-Length: -1'], ''), outcome: atOnce, node: refuse(400) },
  { name: 'conflicting Content-Length lines', bytes: post(['Content-Length: 0', 'Content-Length: 5'], 'hello'), outcome: refuse(400) },
  { name: 'conflicting Content-Length list', bytes: post(['Content-Length: 5, 0'], 'hello'), outcome: refuse(400) },
  // RFC 9112 §6.3 lets a server take identical lines as one or refuse them; Node's parser refuses them.
  { name: 'identical Content-Length lines', bytes: post(['Content-Length: 5', 'Content-Length: 5'], 'hello'), outcome: answer(404), node: refuse(400) },
  { name: 'smuggling CL.TE', bytes: post(['Content-Length: 6', 'Transfer-Encoding: chunked'], '0\r\n\r\nG'), outcome: atOnce, node: refuse(400) },
  {
    name: 'smuggling TE.CL',
    bytes: post(['Transfer-Encoding: chunked', 'Content-Length: 3'], '8\r\nSMUGGLED\r\n0\r\n\r\n'),
    outcome: atOnce,
    node: refuse(400),
  },
  { name: 'Transfer-Encoding not ending in chunked', bytes: post(['Transfer-Encoding: chunked, identity'], '0\r\n\r\n'), outcome: refuse(400) },
  { name: 'obfuscated Transfer-Encoding value', bytes: post(['Transfer-Encoding: xchunked'], '0\r\n\r\n'), outcome: refuse(400) },
  {
    name: 'obfuscated Transfer-Encoding name (space before colon)',
    bytes: post(['Transfer-Encoding : chunked'], '0\r\n\r\n'),
    outcome: onIdle,
    node: refuse(400),
  },
  { name: 'Transfer-Encoding chunked, well formed', bytes: post(['Transfer-Encoding: chunked'], '5\r\nhello\r\n0\r\n\r\n'), outcome: answer(404) },
  // Node routes the head before it reads the body: the 404 goes out, then the body's error closes.
  { name: 'bad chunk size', bytes: post(['Transfer-Encoding: chunked'], 'zz\r\nhello\r\n0\r\n\r\n'), outcome: atOnce, node: answerThenClose(404, 400) },
  { name: 'NUL in the path', bytes: request('GET /open\0api.json HTTP/1.1'), outcome: onIdle, node: refuse(400) },
  { name: 'absolute-form target', bytes: request('GET http://selfscan.test/openapi.json HTTP/1.1'), outcome: onIdle, node: answer(200) },
  { name: 'asterisk-form target', bytes: request('OPTIONS * HTTP/1.1'), outcome: onIdle, node: answer(404) },
  { name: 'HTTP/2 preface', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', outcome: onIdle, node: refuse(400) },
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
  {
    name: 'a scan start and a GET in one write',
    bytes: request('POST /v1/fast HTTP/1.1', [H.trimEnd(), 'Content-Length: 0']) + request('GET /healthz HTTP/1.1'),
    outcome: atOnce,
    node: answer(200, 200),
  },
  {
    name: 'a GET, then an unknown method, in one write',
    bytes: request('GET /openapi.json HTTP/1.1') + request('FOO /openapi.json HTTP/1.1'),
    outcome: answerThenClose(200),
    node: answerThenClose(200, 501),
  },
];
