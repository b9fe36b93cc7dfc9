// Helpers of bench/http/http.ts, question 1: GET /v1/fast on the real server,
// on each HTTP front, against a bare server of the same kind (uWebSockets.js,
// node:http) answering the same bytes, under wrk.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import type { Config } from '../../src/config/config.js';
import type { HttpServerName } from '../../src/http/http-front.js';
import { startDnsServer } from '../../support/dns-server.js';
import { importBuilt } from '../lib/built.js';

const { DEFAULT_CONFIG } = await importBuilt<typeof import('../../src/config/config.js')>('config/config.js');
const { loadUws } = await importBuilt<typeof import('../../src/http/uws.js')>('http/uws.js');
const { createLogger } = await importBuilt<typeof import('../../src/log/logger.js')>('log/logger.js');
const { startServer } = await importBuilt<typeof import('../../src/roles/serve.js')>('roles/serve.js');

const execFileAsync = promisify(execFile);

/** What the logger does with its lines: production's path, into /dev/null. */
export const LOG_SINK = "the service's own logger (src/log/logger.ts: pino level 'info', lines batched for sonic-boom) writing to /dev/null";

export interface RawResponse {
  statusLine: string;
  /** Header lines as sent, in order, `name: value`. */
  headers: string[];
  body: Buffer;
}

export interface Target {
  port: number;
  close(): Promise<void>;
}

/** One HTTP/1.1 request over a raw socket from `localAddress`; the response as sent. */
export function rawRequest(port: number, method: string, path: string, localAddress = '127.0.0.1'): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    const chunks: Buffer[] = [];
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer to ${method} ${path} within 5 s`)));
    socket.once('error', reject);
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 0\r\n\r\n`);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0) return;
      const [statusLine = '', ...headers] = all.subarray(0, split).toString('latin1').split('\r\n');
      const length = Number(/^content-length: *(\d+)$/im.exec(headers.join('\n'))?.[1] ?? NaN);
      if (all.length - split - 4 < length) return;
      socket.destroy();
      resolve({ statusLine, headers, body: all.subarray(split + 4, split + 4 + length) });
    });
  });
}

/**
 * The real server, as built in dist/, in this process (port 0, temp data dir, private targets
 * allowed, setting http.server `front`) with 127.0.0.1's fast scan complete: wrk cannot choose its
 * source address, so 127.0.0.1 is the caller whose stored result it reads.
 * PTR lookups go to a loopback DNS server (answering `localhost`), so no
 * traffic leaves loopback.
 */
export async function startSelfscanWithResult(front: HttpServerName): Promise<Target & { result: RawResponse }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-bench-http-'));
  const dns = await startDnsServer({ '127.0.0.1': 'localhost' });
  const logger = createLogger({ destination: '/dev/null' });
  const config: Config = {
    ...DEFAULT_CONFIG,
    host: '127.0.0.1',
    port: 0,
    dataDir,
    allowPrivateTargets: true,
    drainSeconds: 1,
    dns: { servers: [dns.address], timeoutMs: 2000 },
    limits: limitsOff(),
    http: { ...DEFAULT_CONFIG.http, server: front },
  };
  const server = await startServer(config, logger);
  const close = async (): Promise<void> => {
    await server.close();
    await dns.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const started = await rawRequest(server.port, 'POST', '/v1/fast');
    if (!started.statusLine.includes(' 200 ')) throw new Error(`POST /v1/fast answered ${started.statusLine}`);
    const result = await pollComplete(server.port);
    const health = JSON.parse((await rawRequest(server.port, 'GET', '/healthz')).body.toString('utf8')) as { http_server?: string };
    if (health.http_server !== front) throw new Error(`asked for the ${front} front, /healthz says ${health.http_server}`);
    return { port: server.port, result, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function pollComplete(port: number, timeoutMs = 30_000): Promise<RawResponse> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await rawRequest(port, 'GET', '/v1/fast');
    const status = (JSON.parse(response.body.toString('utf8')) as { status: string }).status;
    if (status === 'complete') return response;
    if (status !== 'queued' && status !== 'running') throw new Error(`fast scan of 127.0.0.1 ended ${status}`);
    if (Date.now() > deadline) throw new Error(`fast scan of 127.0.0.1 still ${status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Headers uWS writes by itself (the bare app gets them too). */
const UWS_OWN_HEADERS = new Set(['date', 'uwebsockets', 'content-length', 'connection', 'transfer-encoding']);

/**
 * A bare uWS app on 127.0.0.1 that answers GET /v1/fast with `response`'s
 * status line, its headers (Content-Type, Cache-Control, X-Scan-Duration-Ms)
 * and body bytes, synchronously.
 */
export async function startBareServer(response: RawResponse): Promise<Target> {
  const uws = loadUws();
  const status = response.statusLine.replace(/^HTTP\/1\.1 /, '');
  const headers = response.headers
    .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const)
    .filter(([name]) => !UWS_OWN_HEADERS.has(name.toLowerCase()));
  const body = response.body;
  const app = uws.App().get('/v1/fast', (res) => {
    res.cork(() => {
      res.writeStatus(status);
      for (const [name, value] of headers) res.writeHeader(name, value);
      res.end(body);
    });
  });
  const socket = await new Promise<Exclude<Parameters<Parameters<typeof app.listen>[2]>[0], false>>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (listen) => (listen === false ? reject(new Error('bare uWS app could not listen')) : resolve(listen))),
  );
  return {
    port: uws.us_socket_local_port(socket),
    close: async () => uws.us_listen_socket_close(socket),
  };
}

/** Headers node:http writes by itself (the bare server gets them too: keep-alive's figure is the Node front's, 10 s). */
const NODE_OWN_HEADERS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);
/** The Node front's keep-alive timeout (src/http/node-front.ts), so that `Keep-Alive: timeout=10` is the same. */
const NODE_FRONT_KEEP_ALIVE_MS = 10_000;

/**
 * A bare node:http server on 127.0.0.1 that answers GET /v1/fast with
 * `response`'s status line, its headers (Content-Length included, written
 * as given, in the same order) and body bytes, synchronously: one
 * writeHead and one end per request, nothing else.
 */
export async function startBareNodeServer(response: RawResponse): Promise<Target> {
  const status = /^HTTP\/1\.1 (\d{3}) ?(.*)$/.exec(response.statusLine);
  if (status === null) throw new Error(`not a status line: ${response.statusLine}`);
  const code = Number(status[1]);
  const reason = status[2]!;
  const headers = response.headers
    .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as const)
    .filter(([name]) => !NODE_OWN_HEADERS.has(name.toLowerCase()))
    .flat();
  const body = response.body;
  const server = createServer({ keepAliveTimeout: NODE_FRONT_KEEP_ALIVE_MS }, (req, res) => {
    if (req.url === '/v1/fast') res.writeHead(code, reason, headers).end(body);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('bare node:http server has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The two responses agree on everything but the Date header. */
export function sameResponse(a: RawResponse, b: RawResponse): boolean {
  const comparable = (r: RawResponse): string =>
    [
      r.statusLine,
      ...r.headers
        .filter((line) => !/^date:/i.test(line))
        .map((line) => line.toLowerCase())
        .sort(),
    ].join('\n');
  return comparable(a) === comparable(b) && a.body.equals(b.body);
}

export interface WrkOptions {
  threads: number;
  connections: number;
  seconds: number;
}

/** Requests/sec of one wrk run against 127.0.0.1:`port`/v1/fast; throws on errors or non-2xx answers. */
export async function wrkRequestsPerSecond(port: number, options: WrkOptions): Promise<number> {
  const args = [`-t${options.threads}`, `-c${options.connections}`, `-d${options.seconds}s`, `http://127.0.0.1:${port}/v1/fast`];
  const { stdout } = await execFileAsync('wrk', args, { timeout: (options.seconds + 20) * 1000 });
  const rate = /^Requests\/sec:\s+([\d.]+)/m.exec(stdout)?.[1];
  if (rate === undefined) throw new Error(`no Requests/sec in wrk's output:\n${stdout}`);
  if (/Non-2xx|Socket errors/.test(stdout)) throw new Error(`wrk saw errors against port ${port}:\n${stdout}`);
  return Number(rate);
}

/**
 * One wrk run, and the CPU this process spent per request meanwhile: every
 * server of the comparison lives in this process, and those not under load
 * cost nothing measurable. Less noisy than requests/s, which also depends
 * on how much of the shared cores wrk gets.
 */
export async function measuredRun(port: number, options: WrkOptions): Promise<{ rate: number; cpuMicrosPerRequest: number }> {
  const before = process.cpuUsage();
  const rate = await wrkRequestsPerSecond(port, options);
  const spent = process.cpuUsage(before);
  return { rate, cpuMicrosPerRequest: (spent.user + spent.system) / (rate * options.seconds) };
}

/**
 * Every rate limit off (`max: 0`): wrk is one caller (127.0.0.1) sending
 * tens of thousands of requests a second, and the stream benchmark starts
 * thousands of scans; both measure the service, not its throttling.
 */
export function limitsOff(): Config['limits'] {
  const entries = Object.entries(DEFAULT_CONFIG.limits).map(([name, rule]) => [name, typeof rule === 'object' ? { ...rule, max: 0 } : rule]);
  return Object.fromEntries(entries) as Config['limits'];
}
