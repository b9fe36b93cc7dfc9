// A Server-Sent Events reader over fetch for tests that need what
// EventSource hides: the Last-Event-ID a reconnect sends, and stopping at
// a chosen event to reconnect elsewhere.
export interface SseEvent {
  name: string;
  id: number;
  data: Record<string, unknown>;
}

/**
 * Reads the stream of GET `url` until the terminal event, or until `until`
 * says stop (the connection is then dropped). Resolves with the events read.
 */
export async function readSse(
  url: string,
  options: { lastEventId?: number; headers?: Record<string, string>; until?: (event: SseEvent) => boolean } = {},
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const headers: Record<string, string> = { Accept: 'text/event-stream', ...options.headers };
  if (options.lastEventId !== undefined) headers['Last-Event-ID'] = String(options.lastEventId);
  const response = await fetch(url, { headers, signal: abort.signal });
  if (response.headers.get('content-type')?.startsWith('text/event-stream') !== true)
    throw new Error(`not a stream: ${response.status} ${await response.text()}`);
  const events: SseEvent[] = [];
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const bytes of response.body!) {
      buffer += decoder.decode(bytes as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map(
          block.split('\n').flatMap((line) => (line.startsWith(':') ? [] : [[line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)] as const])),
        );
        if (!fields.has('event')) continue;
        const event = { name: fields.get('event')!, id: Number(fields.get('id')), data: JSON.parse(fields.get('data')!) as Record<string, unknown> };
        events.push(event);
        if (event.name === 'scan:complete' || event.name === 'scan:failed' || options.until?.(event) === true) return events;
      }
    }
  } finally {
    abort.abort();
  }
  return events;
}
