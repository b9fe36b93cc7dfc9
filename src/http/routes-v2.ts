// v2, streaming: GET /v2/{fast,deep} starts a scan of the caller unless one
// is in flight, and streams its events as Server-Sent Events. A refused
// start answers the JSON error instead of a stream. A reconnect carrying
// Last-Event-ID resumes the scan it watched: its state now, then newer
// events, or the end it missed; it starts nothing while either exists.

import type { RegionsAsked } from '../api/regions-asked.js';
import type { ScanType } from '../api/scan-type.js';
import { isFinalBody } from '../scan/result-view.js';
import type { StreamEvent } from '../scan/scan-events.js';
import type { Watch } from '../scan/scans.js';
import { terminalEvent } from '../scan/stream-events.js';
import type { Exchange, Headers } from './exchange.js';
import { readRegionsParam, regionsAskedOf } from './regions-param.js';
import type { RouteContext } from './route-context.js';
import { SSE_HEADERS, SseStream } from './sse-stream.js';

/** A Last-Event-ID header as the event id it names; null when absent or not one of ours. */
function lastEventIdOf(header: string): number | null {
  return /^\d{1,15}$/.test(header) ? Number(header) : null;
}

/**
 * GET `path` starts or joins a `scanType` scan of the caller and streams it;
 * HEAD answers a stream's headers and starts nothing (HEAD is safe).
 */
export function registerV2(context: RouteContext, path: string, scanType: ScanType): void {
  const { app } = context;

  app.get(path, (res, req) => {
    const lastEventId = lastEventIdOf(req.getHeader('last-event-id')); // readable only now, before any await
    const regionsParam = readRegionsParam(req);
    context.handle(res, req, 'GET', path, async (exchange, ip, headers) => {
      const regionsAsked = regionsAskedOf(regionsParam);
      // Events that arrive before the stream is open wait here.
      const early: StreamEvent[] = [];
      let stream: SseStream | undefined;
      const listener = (event: StreamEvent): void => void (stream ? stream.send(event) : early.push(event));
      const watch =
        (lastEventId !== null && (await resume(context, { ip, scanType, regionsAsked }, lastEventId, listener))) ||
        (await context.startScan(ip, scanType, 'v2', listener, 'no-webhook', regionsAsked));
      return streamEvents(context, exchange, headers, watch, early, (opened) => (stream = opened));
    });
  });
  app.head(path, (res, req) =>
    context.handle(res, req, 'HEAD', path, (exchange, _ip, headers) => {
      exchange.write('200 OK', Buffer.alloc(0), SSE_HEADERS, headers);
      return '200';
    }),
  );
}

/** The scan a reconnecting stream watched: still in flight, or its end from the kept result; null: start anew. */
async function resume(
  context: RouteContext,
  scan: { ip: string; scanType: ScanType; regionsAsked: RegionsAsked | undefined },
  lastEventId: number,
  listener: (event: StreamEvent) => void,
): Promise<Watch | null> {
  const { ip, scanType, regionsAsked } = scan;
  const watching = await context.service.watch(ip, scanType, listener, lastEventId, regionsAsked);
  if (watching !== null) return watching;
  const result = await context.service.result(ip, scanType, regionsAsked);
  return isFinalBody(result) ? { initial: [terminalEvent(result, lastEventId + 1)], unsubscribe: () => {} } : null;
}

function streamEvents(
  context: RouteContext,
  exchange: Exchange,
  headers: Headers,
  watch: Watch,
  early: StreamEvent[],
  opened: (stream: SseStream) => void,
): string | Promise<string> {
  if (exchange.aborted) {
    watch.unsubscribe();
    return 'aborted';
  }
  return new Promise<string>((resolve) => {
    context.metrics?.streamOpened();
    const stream = new SseStream(exchange, headers, context.sseKeepAliveMs, () => {
      context.metrics?.streamClosed();
      watch.unsubscribe();
      resolve(exchange.aborted ? 'aborted' : '200');
    });
    opened(stream);
    for (const event of [...watch.initial, ...early.splice(0)]) stream.send(event);
  });
}
