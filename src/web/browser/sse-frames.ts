// Server-Sent Events read from a fetch() body: EventSource cannot show a
// refused start's status or JSON body, so the page reads the stream itself,
// with the one SSE reader of the wire contract.
import { type SseMessage, SseParser } from '../../api/sse-parser.js';

/** The events of a text/event-stream body, as they arrive; one cut off by the stream's end too. */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  const parser = new SseParser((message) => ready.push(message));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.push(decoder.decode(value, { stream: true }));
      yield* ready.splice(0);
    }
    parser.push(decoder.decode());
    parser.end();
    yield* ready.splice(0);
  } finally {
    reader.releaseLock();
  }
}
