// A Server-Sent Events reader over fetch for tests that need what
// EventSource hides: the Last-Event-ID a reconnect sends, and stopping at
// a chosen event to reconnect elsewhere. Framing is the service's own SSE
// reader's.
import { SseParser } from '../src/api/sse-parser.js';
import type { CallerFetch } from './callers.js';

export interface SseEvent {
  name: string;
  id: number;
  data: Record<string, unknown>;
}

/**
 * Reads the stream of GET `url` (with `fetch`: from a chosen loopback caller) until the terminal event, or until `until`
 * says stop (the connection is then dropped). Resolves with the events read.
 */
export async function readSse(
  url: string,
  options: { lastEventId?: number; headers?: Record<string, string>; until?: (event: SseEvent) => boolean; fetch?: CallerFetch } = {},
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...options.headers };
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = String(options.lastEventId);
  const response = await (options.fetch ?? fetch)(url, { headers, signal: abort.signal });
  if (response.headers.get('content-type')?.startsWith('text/event-stream') !== true)
    throw new Error(`not a stream: ${response.status} ${await response.text()}`);
  const events: SseEvent[] = [];
  let done = false;
  const parser = new SseParser(({ event: name, id, data }) => {
    if (done) return;
    const event = { name, id: Number(id), data: JSON.parse(data) as Record<string, unknown> };
    events.push(event);
    done = name === 'scan:complete' || name === 'scan:failed' || options.until?.(event) === true;
  });
  const decoder = new TextDecoder();
  try {
    for await (const bytes of response.body!) {
      parser.push(decoder.decode(bytes as Uint8Array, { stream: true }));
      if (done) return events;
    }
  } finally {
    abort.abort();
  }
  return events;
}
