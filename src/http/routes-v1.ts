// v1, polling: POST /v1/{fast,deep} starts (or joins) a scan of the caller,
// GET /v1/{fast,deep} reports its state.
import { ApiError } from '../api/api-error.js';
import type { ScanResult } from '../api/scan-result.js';
import type { ScanType } from '../api/scan-type.js';
import { isFinal } from '../model/scan-record.js';
import { type Exchange, type Headers, type PreparedJson, prepareJson } from './exchange.js';
import { HeaderBlock } from './header-block.js';
import { readRegionsParam, regionsAskedOf } from './regions-param.js';
import type { Handler, RouteContext } from './route-context.js';

interface EncodedBody {
  json: PreparedJson;
  /** X-Scan-Duration-Ms of a complete scan. */
  headers: HeaderBlock;
}

const NO_MORE_HEADERS = new HeaderBlock({});

/** Finished bodies encoded (and, for clients that accept it, compressed) once: the service hands out the same object each time. */
const encoded = new WeakMap<ScanResult, EncodedBody>();

/** A finished result as kept bytes; null for one still changing, serialised anew each time. */
function kept(body: ScanResult): EncodedBody | null {
  if (body.status === 'none' || !isFinal(body.status)) return null;
  let entry = encoded.get(body);
  if (entry === undefined) {
    const headers = body.status === 'complete' ? new HeaderBlock({ 'X-Scan-Duration-Ms': String(body.duration_ms) }) : NO_MORE_HEADERS;
    encoded.set(body, (entry = { json: prepareJson(JSON.stringify(body)), headers }));
  }
  return entry;
}

/** POST `path` starts (or joins) a `scanType` scan of the caller; GET `path` reports it. */
export function registerV1(context: RouteContext, path: string, scanType: ScanType): void {
  const { app, service } = context;

  app.post(path, (res, req) => {
    const callbackUrl = req.getHeader('x-callback-url'); // readable only now, before any await
    const regionsParam = readRegionsParam(req);
    context.handle(res, req, 'POST', path, async (exchange, ip, headers) => {
      const regionsAsked = regionsAskedOf(regionsParam);
      const invalid = callbackUrl === '' ? null : context.webhooks.refuseUrl(callbackUrl);
      if (invalid !== null) throw new ApiError('invalid_callback_url', invalid);
      const started = await context.startScan(ip, scanType, 'v1', undefined, callbackUrl === '' ? 'no-webhook' : 'webhook', regionsAsked);
      if (callbackUrl !== '') await context.webhooks.register(started.scanId, ip, scanType, callbackUrl, regionsAsked);
      await exchange.json('200 OK', started.body, headers);
      return '200';
    });
  });

  // Made once, not per request: the GET of a kept result is the hot path.
  const getResult: Handler = (exchange, ip, headers) => {
    // A result in memory is answered within the uWS callback, without a promise.
    const known = service.resultInMemory(ip, scanType);
    return known !== undefined ? answerResult(exchange, headers, known) : service.result(ip, scanType).then((body) => answerResult(exchange, headers, body));
  };
  context.get(path, (res, req) => {
    const regionsParam = readRegionsParam(req);
    if (regionsParam === undefined) return context.handle(res, req, 'GET', path, getResult);
    context.handle(res, req, 'GET', path, async (exchange, ip, headers) =>
      answerResult(exchange, headers, await service.result(ip, scanType, regionsAskedOf(regionsParam))),
    );
  });
}

function answerResult(exchange: Exchange, headers: Headers, body: ScanResult): string | Promise<string> {
  const entry = kept(body);
  if (entry !== null) {
    exchange.preparedJson('200 OK', entry.json, headers, entry.headers);
    return '200';
  }
  const written = exchange.jsonText('200 OK', JSON.stringify(body), headers);
  return written === undefined ? '200' : written.then(() => '200');
}
