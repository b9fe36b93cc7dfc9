// npm run bench:fuzz — hostile HTTP against the built server (`selfscan
// serve`, rate limits off so that every request reaches the routes): 10,000
// requests over 64 concurrent connections, drawn by a seeded PRNG
// (FUZZ_SEED, default 18) so that a run can be repeated exactly. Requests
// are random methods and paths, forged forwarding headers, odd headers,
// short bodies, pipelines, and every shape of support/hostile-shapes.ts.
// Each request goes on its own connection; every 100th slot is a probe
// GET /openapi.json on a fresh connection, which must be answered whole.
// Printed and recorded in bench/RESULTS.md: crashes, 5xx, and per shape
// what happened (answered, closed at once, no answer within the wait) and
// how often that differs from what the shape should get (FUZZ_DEBUG=1
// prints the first two such answers of each shape).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { type Outcome, request, SHAPES } from '../../support/hostile-shapes.js';
import { type RawAnswer, rawExchange } from '../../support/raw-http.js';
import { startServerProcess } from '../../support/server-process.js';
import { BUILT_CLI } from '../lib/built.js';
import { recordSection } from '../lib/results-file.js';

const REQUESTS = 10_000;
const CONNECTIONS = 64;
const SEED = Number(process.env.FUZZ_SEED ?? 18);
/** How long a request waits for its answers; a shape that uWS holds until its idle timeout shows as "no answer". */
const WAIT_MS = 1500;
const PROBE_EVERY = 100;

/** mulberry32: a small seeded PRNG. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (from: number, to: number): number => from + Math.floor(random() * (to - from + 1));
const token = (length: number): string => Array.from({ length }, () => pick([...'abcdefghijklmnopqrstuvwxyz0123456789-'])).join('');

const METHODS = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'] as const;
/** Paths that answer at once (no stream): v2 GETs would hold their connection for a whole scan. */
const SAFE_GET_PATHS = ['/', '/openapi.json', '/healthz', '/.well-known/selfscan-webhook-key', '/v1/fast', '/v1/deep', '/scan/fast'];
const randomPath = (): string =>
  pick([
    ...SAFE_GET_PATHS,
    `/nope/${token(int(1, 40))}`,
    `/assets/${token(12)}.js`,
    '/..%2f..%2fetc/passwd',
    `/v1/fast?ip=${int(1, 255)}.${int(0, 255)}.0.1`,
    `/${'a'.repeat(int(1000, 8000))}`,
    '/%00',
    '/v2/fast/extra',
  ]);
const host = 'Host: selfscan.test';

interface Draw {
  shape: string;
  bytes: string;
  outcome: Outcome;
}

const answered = (statuses: number): Outcome => ({ statuses: Array.from({ length: statuses }, () => 0), close: false });

/** One hostile request, its shape's name and what it should get (status 0: any status below 500). */
function draw(): Draw {
  const kind = random();
  if (kind < 0.3) {
    const shape = pick(SHAPES);
    return { shape: shape.name, bytes: shape.bytes, outcome: shape.outcome };
  }
  if (kind < 0.5) {
    const method = pick(METHODS);
    const path = method === 'GET' || method === 'HEAD' ? pick([...SAFE_GET_PATHS, randomPath()]) : randomPath();
    const target = method === 'GET' && path.startsWith('/v2/') ? '/openapi.json' : path;
    return { shape: 'random method and path', bytes: request(`${method} ${target} HTTP/1.1`), outcome: answered(1) };
  }
  if (kind < 0.62) {
    const forged = [
      `X-Forwarded-For: ${int(1, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
      `X-Forwarded-For: 10.0.0.1, ${int(1, 223)}.1.1.1`,
      `Forwarded: for="[2001:db8::${int(1, 9999)}]:${int(1, 65535)}"`,
      'X-Real-IP: 8.8.8.8',
    ];
    const headers = [host, ...forged.filter(() => random() < 0.6)];
    return { shape: 'forged forwarding headers', bytes: request(`GET ${pick(SAFE_GET_PATHS)} HTTP/1.1`, headers), outcome: answered(1) };
  }
  if (kind < 0.74) {
    const headers = [host, ...Array.from({ length: int(1, 30) }, () => `X-${token(int(1, 20))}: ${token(int(0, 200))}`)];
    return { shape: 'odd but valid headers', bytes: request(`${pick(['GET', 'HEAD'])} ${pick(SAFE_GET_PATHS)} HTTP/1.1`, headers), outcome: answered(1) };
  }
  if (kind < 0.86) {
    const count = int(2, 8);
    const bytes = Array.from({ length: count }, () => request(`${pick(['GET', 'HEAD'])} ${pick(SAFE_GET_PATHS)} HTTP/1.1`)).join('');
    return { shape: 'pipeline of 2-8 GET/HEAD', bytes, outcome: answered(count) };
  }
  const body = token(int(0, 64));
  const declared = body.length + pick([0, 0, int(1, 100)]);
  const path = pick(['/nope', '/openapi.json', '/v1/nope', '/mcp']);
  const bytes = request(`POST ${path} HTTP/1.1`, [host, `Content-Length: ${declared}`, 'Content-Type: application/json'], body);
  if (declared === body.length) return { shape: 'POST with a body', bytes, outcome: answered(1) };
  // A route that reads the body (MCP) waits for the rest, until uWS's idle timeout; the others answer at once.
  if (path === '/mcp') return { shape: 'POST /mcp with a body shorter than its Content-Length', bytes, outcome: { closeOnIdle: true } };
  return { shape: 'POST with a body shorter than its Content-Length', bytes, outcome: answered(1) };
}

type Fate = 'answered' | 'closed at once' | 'no answer';

function fateOf(answer: RawAnswer): Fate {
  if (answer.statuses.length > 0) return 'answered';
  return answer.closed ? 'closed at once' : 'no answer';
}

/** Whether `answer` is what `outcome` says (status 0 stands for any status below 500). */
function asExpected(answer: RawAnswer, outcome: Outcome): boolean {
  if ('statuses' in outcome) {
    return (
      answer.statuses.length === outcome.statuses.length &&
      outcome.statuses.every((status, i) => (status === 0 ? answer.statuses[i]! < 500 : answer.statuses[i] === status))
    );
  }
  if ('closeAtOnce' in outcome) return answer.statuses.length === 0 && answer.closed;
  return answer.statuses.length === 0 && !answer.closed; // held until uWS's idle timeout
}

interface Tally {
  requests: number;
  answered: number;
  'closed at once': number;
  'no answer': number;
  unexpected: number;
  expected: string;
}

function describeOutcome(outcome: Outcome): string {
  if ('closeAtOnce' in outcome) return 'uWS closes at once';
  if ('closeOnIdle' in outcome) return 'uWS holds until its idle timeout (~10-14 s), then closes';
  return outcome.statuses.every((status) => status === 0) ? 'answered' : `${outcome.statuses.join(', ')}${outcome.close ? ', then closed' : ''}`;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-bench-fuzz-'));
  const server = await startServerProcess(dataDir, {}, [BUILT_CLI]);
  const port = Number(new URL(server.url).port);
  let crashed: number | string | null = null;
  let stopping = false;
  void server.exited.then((code) => {
    if (!stopping) crashed = code;
  });
  const draws = Array.from({ length: REQUESTS }, draw);
  const tallies = new Map<string, Tally>();
  let serverErrors = 0;
  let probes = 0;
  let probesOk = 0;
  let next = 0;
  const started = Date.now();

  const probe = async (): Promise<void> => {
    const answer = await rawExchange(port, request('GET /openapi.json HTTP/1.1'), { answers: 1, waitMs: 5000, settleMs: 20 });
    const length = /Content-Length: (\d+)/i.exec(answer.text)?.[1];
    probes++;
    if (answer.statuses[0] === 200 && length !== undefined && answer.text.endsWith('}') && answer.text.split('\r\n\r\n')[1]!.length === Number(length))
      probesOk++;
  };

  const worker = async (): Promise<void> => {
    for (let i = next++; i < REQUESTS; i = next++) {
      if (i % PROBE_EVERY === 0) await probe();
      const { shape, bytes, outcome } = draws[i]!;
      const expectedCount = 'statuses' in outcome ? outcome.statuses.length : Number.POSITIVE_INFINITY;
      const answer = await rawExchange(port, bytes, { answers: expectedCount, waitMs: WAIT_MS, settleMs: 50 });
      const tally = tallies.get(shape) ?? { requests: 0, answered: 0, 'closed at once': 0, 'no answer': 0, unexpected: 0, expected: describeOutcome(outcome) };
      tally.requests++;
      tally[fateOf(answer)]++;
      if (!asExpected(answer, outcome)) {
        tally.unexpected++;
        if (process.env.FUZZ_DEBUG && tally.unexpected <= 2)
          console.log('DEBUG', shape, JSON.stringify(bytes.slice(0, 200)), answer.statuses, answer.closed, JSON.stringify(answer.text.slice(0, 300)));
      }
      serverErrors += answer.statuses.filter((status) => status >= 500).length;
      tallies.set(shape, tally);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  await probe();
  const seconds = (Date.now() - started) / 1000;
  stopping = true;
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });

  const rows = [...tallies.entries()].sort(([a], [b]) => a.localeCompare(b));
  const unexpected = rows.reduce((sum, [, tally]) => sum + tally.unexpected, 0);
  const unanswered = rows.reduce((sum, [, tally]) => sum + tally['no answer'] + tally['closed at once'], 0);
  const lines = [
    `${REQUESTS} hostile requests (seed ${SEED}) over ${CONNECTIONS} concurrent connections, each on its own connection, against the built server (rate limits off); ${seconds.toFixed(1)} s. A request waits ${WAIT_MS} ms for its answers.`,
    '',
    `- crashes: ${crashed === null ? 0 : `1 (exit ${crashed})`}`,
    `- 5xx answers: ${serverErrors}`,
    `- probe GETs answered 200 and whole: ${probesOk} of ${probes}`,
    `- requests without an HTTP answer: ${unanswered}${unexpected === 0 ? ', every one of a shape uWS closes or holds (below)' : ''}; requests whose fate differs from their shape's: ${unexpected}`,
    '',
    '| shape | requests | answered | closed at once | no answer within the wait | expected | unexpected |',
    '|---|---:|---:|---:|---:|---|---:|',
    ...rows.map(([shape, t]) => `| ${shape} | ${t.requests} | ${t.answered} | ${t['closed at once']} | ${t['no answer']} | ${t.expected} | ${t.unexpected} |`),
  ];
  console.log(lines.join('\n'));
  recordSection('fuzz', 'Hostile HTTP (npm run bench:fuzz)', lines);
  if (crashed !== null || serverErrors > 0 || unexpected > 0 || probesOk !== probes) process.exitCode = 1;
}

await main();
