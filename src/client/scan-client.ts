// Runs one scan on a selfscan server and resolves its final result: one v2
// event stream, and if that stream is cut before its end (a proxy with a
// short idle timeout), the same scan followed by polling v1. Plain
// node:http/https, so the caller picks the address family (-4/-6) and the
// local address (--source): the server scans the address it is called from.
// Every request carries the same `regions`, so the stream and the polling
// follow the same multi-region scan.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ErrorBody } from '../api/error-body.js';
import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanResult, ScanResultFinal } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import type { SseProgress, SseQueued } from '../api/sse-events.js';
import { SseParser } from '../api/sse-parser.js';
import { CheckError } from './check-error.js';

/** How far the scan is, as the server last said. */
export interface ScanProgress {
  chunksComplete: number;
  totalChunks: number;
  /** Open ports found so far; undefined while polling (v1 does not say). */
  openSoFar?: number;
  etaSeconds?: number;
  /** The region whose chunk was just verified (multi-region scans). */
  region?: string;
  /** Each region's chunks so far (multi-region scans). */
  regions?: RegionProgress[];
}

/** One region's part of a multi-region scan so far. */
export interface RegionProgress {
  region: string;
  chunksComplete: number;
  totalChunks: number;
}

export interface ScanClientOptions {
  server: URL;
  scanType: ScanType;
  /** The regions to scan from; undefined: from one place. */
  regions?: RegionsAsked;
  family?: 4 | 6;
  localAddress?: string;
  /** Aborts everything when the time is up. */
  signal: AbortSignal;
  /** When the time is up (ms since the epoch). */
  deadline: number;
  timeoutSeconds: number;
  waitRateLimit: boolean;
  onProgress(progress: ScanProgress): void;
  /** Something the person running the check should know (a wait, a fallback). */
  onNote(text: string): void;
}

/** How long v1 polling waits between GETs. */
const POLL_INTERVAL_MS = 1000;

const FINAL = ['complete', 'incomplete', 'failed'];

/** Runs the scan and resolves its final result; throws CheckError. */
export async function runScan(options: ScanClientOptions): Promise<ScanResultFinal> {
  const client = new Client(options);
  const response = await client.call('GET', 'v2', 'text/event-stream');
  if (!response.headers['content-type']?.startsWith('text/event-stream'))
    throw await httpError(response, `GET ${pathOf('v2', options)}`, 'expected an event stream');
  const final = await client.stream(response);
  if (final !== null) return final;
  options.onNote(`the event stream was cut before the scan ended; following it by polling ${pathOf('v1', options)}`);
  return client.poll();
}

class Client {
  private waitedForRateLimit = false;

  constructor(private readonly options: ScanClientOptions) {}

  /** Sends one request; answers 200, else throws (429: waits once if asked). */
  async call(method: 'GET' | 'POST', version: 'v1' | 'v2', accept: string): Promise<IncomingMessage> {
    const { options } = this;
    for (;;) {
      const response = await this.send(method, version, accept);
      if (response.statusCode === 200) return response;
      if (response.statusCode !== 429) throw await httpError(response, `${method} ${pathOf(version, options)}`);
      const body = await readBody(response, options.signal);
      const retryAfter = retryAfterSeconds(response, body);
      const reason = errorBody(body)?.reason ?? 'too many requests';
      if (!options.waitRateLimit || this.waitedForRateLimit)
        throw new CheckError('rate_limited', `rate limited by ${options.server.origin}: ${reason}${options.waitRateLimit ? ' (already waited once)' : ''}`);
      if (Date.now() + retryAfter * 1000 >= options.deadline)
        throw new CheckError('rate_limited', `rate limited by ${options.server.origin}: ${reason}; Retry-After ${retryAfter} s is past the --timeout`);
      options.onNote(`rate limited: waiting ${retryAfter} s (Retry-After), as --wait-rate-limit asks`);
      this.waitedForRateLimit = true;
      await sleep(retryAfter * 1000, undefined, { signal: options.signal }).catch(() => this.timedOut());
    }
  }

  /** Reads the stream to its terminal event; null when it ends before one. */
  stream(response: IncomingMessage): Promise<ScanResultFinal | null> {
    return new Promise((resolve, reject) => {
      let final: ScanResultFinal | null = null;
      const parser = new SseParser(({ event, data }) => {
        if (final !== null) return;
        const payload = parseJson(data) as Partial<SseQueued & SseProgress> & { status?: string };
        if (event === 'scan:queued' || event === 'scan:progress') this.progress(payload);
        else if ((event === 'scan:complete' || event === 'scan:failed') && isFinal(payload)) {
          final = payload;
          response.destroy();
          resolve(final);
        }
      });
      response.setEncoding('utf8');
      response.on('data', (text: string) => parser.push(text));
      const ended = (): void => {
        if (this.options.signal.aborted) reject(this.timeoutError());
        else resolve(final);
      };
      response.on('end', ended);
      response.on('close', ended);
      response.on('error', ended);
    });
  }

  /** Follows the scan through GET /v1 until it is over (POST /v1 if the server has none). */
  async poll(): Promise<ScanResultFinal> {
    for (;;) {
      const body = parseJson(await readBody(await this.call('GET', 'v1', 'application/json'), this.options.signal)) as ScanResult;
      if (isFinal(body)) return body;
      if (body.status === 'none') await readBody(await this.call('POST', 'v1', 'application/json'), this.options.signal);
      else if (body.status === 'queued' || body.status === 'running') this.progress(body);
      else
        throw new CheckError(
          'http',
          `unexpected answer from GET ${pathOf('v1', this.options)}: status ${JSON.stringify((body as { status?: unknown }).status)}`,
        );
      await sleep(POLL_INTERVAL_MS, undefined, { signal: this.options.signal }).catch(() => this.timedOut());
    }
  }

  private progress(payload: Partial<SseQueued & SseProgress>): void {
    if (payload.chunks_complete === undefined || payload.total_chunks === undefined) return;
    this.options.onProgress({
      chunksComplete: payload.chunks_complete,
      totalChunks: payload.total_chunks,
      openSoFar: payload.ports_open?.length,
      etaSeconds: payload.eta_seconds,
      region: payload.region,
      regions: payload.vantages?.map(({ region, chunks_complete, total_chunks }) => ({ region, chunksComplete: chunks_complete, totalChunks: total_chunks })),
    });
  }

  private send(method: string, version: 'v1' | 'v2', accept: string): Promise<IncomingMessage> {
    const { options } = this;
    const base = options.server.href.endsWith('/') ? options.server.href : `${options.server.href}/`;
    const url = new URL(pathOf(version, options).slice(1), base);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const outgoing = request(url, {
        method,
        family: options.family,
        localAddress: options.localAddress,
        signal: options.signal,
        agent: false,
        headers: { accept, 'user-agent': 'selfscan-check' },
      });
      outgoing.on('response', resolve);
      outgoing.on('error', (error) =>
        reject(options.signal.aborted ? this.timeoutError() : new CheckError('unreachable', `cannot reach ${options.server.origin}: ${error.message}`)),
      );
      outgoing.end();
    });
  }

  private timeoutError(): CheckError {
    return new CheckError('timeout', `no result from ${this.options.server.origin} within ${this.options.timeoutSeconds} s (--timeout)`);
  }

  private timedOut(): never {
    throw this.timeoutError();
  }
}

/** The path of a scan route with its `regions` (names need no escaping: refuseRegions let only letters, digits, _ - and commas by). */
function pathOf(version: 'v1' | 'v2', { scanType, regions }: Pick<ScanClientOptions, 'scanType' | 'regions'>): string {
  return `/${version}/${scanType}${regions === undefined ? '' : `?regions=${regions}`}`;
}

function isFinal(body: { status?: string } | undefined): body is ScanResultFinal {
  return body !== undefined && FINAL.includes(body.status ?? '');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new CheckError('http', `the server answered something that is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
}

function errorBody(text: string): ErrorBody | undefined {
  try {
    const body = JSON.parse(text) as Partial<ErrorBody>;
    return typeof body.error === 'string' && typeof body.reason === 'string' ? (body as ErrorBody) : undefined;
  } catch {
    return undefined;
  }
}

function retryAfterSeconds(response: IncomingMessage, body: string): number {
  const header = Number(response.headers['retry-after']);
  if (Number.isFinite(header) && header >= 0) return header;
  return errorBody(body)?.retry_after ?? 1;
}

async function readBody(response: IncomingMessage, signal: AbortSignal): Promise<string> {
  let text = '';
  response.setEncoding('utf8');
  try {
    for await (const chunk of response) text += chunk;
  } catch (error) {
    if (signal.aborted) throw new CheckError('timeout', 'time ran out while reading an answer (--timeout)');
    throw new CheckError('unreachable', `the connection broke: ${(error as Error).message}`);
  }
  return text;
}

async function httpError(response: IncomingMessage, path: string, expected?: string): Promise<CheckError> {
  const text = await readBody(response, new AbortController().signal).catch(() => '');
  const body = errorBody(text);
  const what = body === undefined ? (expected ?? text.slice(0, 200)) : `${body.error}: ${body.reason}`;
  return new CheckError('http', `HTTP ${response.statusCode} ${response.statusMessage ?? ''} from ${path}: ${what}`.replace(/ {2}/g, ' '));
}
