// v2, streaming: GET /v2/{fast,deep} starts a scan of the caller unless one
// is in flight, and streams its events as Server-Sent Events. A refused
// start answers the JSON error instead of a stream.
import type { ScanType } from '../api/scan-type.js';
import type { StreamEvent } from '../scan/scan-events.js';
import type { RouteContext } from './route-context.js';
import { SseStream } from './sse-stream.js';

/** GET `path` starts or joins a `scanType` scan of the caller and streams it. */
export function registerV2(context: RouteContext, path: string, scanType: ScanType): void {
  const { app } = context;

  app.get(path, (res, req) => {
    context.handle(res, req, 'GET', path, async (exchange, ip, headers) => {
      // Events that arrive before the stream is open wait here.
      const early: StreamEvent[] = [];
      let stream: SseStream | undefined;
      const started = await context.startScan(ip, scanType, 'v2', (event) => (stream ? stream.send(event) : early.push(event)));
      if (exchange.aborted) {
        started.unsubscribe();
        return 'aborted';
      }
      return new Promise<string>((resolve) => {
        stream = new SseStream(exchange, headers, context.sseKeepAliveMs, () => {
          started.unsubscribe();
          resolve(exchange.aborted ? 'aborted' : '200');
        });
        for (const event of [...started.initial, ...early.splice(0)]) stream.send(event);
      });
    });
  });
}
