// v1, polling: POST /v1/{fast,deep} starts (or joins) a scan of the caller,
// GET /v1/{fast,deep} reports its state.
import type { ScanResultBody } from '../scan/result-view.js';
import type { ScanType } from '../scan/scan-types.js';
import { refuseCallbackUrl } from '../webhook/callback-url.js';
import { ApiError } from './errors.js';
import type { Headers } from './exchange.js';
import type { RouteContext } from './route-context.js';

/** JSON of finished bodies, which the manager hands out as the same object each time. */
const texts = new WeakMap<ScanResultBody, string>();

function serialised(body: ScanResultBody): string {
  let text = texts.get(body);
  if (text === undefined) {
    text = JSON.stringify(body);
    if (body.status !== 'queued' && body.status !== 'running' && body.status !== 'none') texts.set(body, text);
  }
  return text;
}

export function registerV1(context: RouteContext, scanType: ScanType): void {
  const { app, manager } = context;
  const path = `/v1/${scanType}`;

  app.post(path, (res, req) => {
    const callbackUrl = req.getHeader('x-callback-url'); // readable only now, before any await
    context.handle(res, req, 'POST', path, async (exchange, ip, headers) => {
      const invalid = callbackUrl === '' ? null : refuseCallbackUrl(callbackUrl);
      if (invalid !== null) throw new ApiError('invalid_callback_url', invalid);
      const started = await context.startScan(ip, scanType, 'v1');
      if (callbackUrl !== '') await context.webhooks.register(started.scanId, ip, scanType, callbackUrl);
      await exchange.json('200 OK', started.body, headers);
      return '200';
    });
  });

  app.get(path, (res, req) => {
    context.handle(res, req, 'GET', path, async (exchange, ip, headers) => {
      const body = await manager.result(ip, scanType);
      const duration: Headers = body.status === 'complete' ? { 'X-Scan-Duration-Ms': String(body.duration_ms) } : {};
      await exchange.jsonText('200 OK', serialised(body), { ...headers, ...duration });
      return '200';
    });
  });
}
