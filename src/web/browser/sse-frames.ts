// Server-Sent Events read from a fetch() body: EventSource cannot show a
// refused start's status or JSON body, so the page reads the stream itself.
// Handles `event:`, `id:` and `data:` lines; comments (`: keep-alive`) and
// unknown fields are skipped.

export interface SseFrame {
  event: string;
  id: string;
  data: string;
}

/** Parses one frame's lines; null for a frame with no data (a comment alone). */
export function parseFrame(block: string): SseFrame | null {
  let event = 'message';
  let id = '';
  const data: string[] = [];
  for (const line of block.split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  return data.length === 0 ? null : { event, id, data: data.join('\n') };
}

/** The frames of a text/event-stream body, as they arrive. */
export async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      const frames = buffer.split(/\r\n\r\n|\n\n|\r\r/);
      buffer = frames.pop() ?? '';
      for (const block of frames) {
        const frame = parseFrame(block);
        if (frame !== null) yield frame;
      }
    }
    const last = parseFrame(buffer);
    if (last !== null) yield last;
  } finally {
    reader.releaseLock();
  }
}
