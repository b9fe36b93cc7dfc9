// The page's own Server-Sent Events reader (it cannot use EventSource):
// frames split anywhere across network chunks, CRLF line ends, comments
// (`: keep-alive`) skipped, multi-line data joined.
import { describe, expect, it } from 'vitest';

import { sseFrames } from '../../src/web/browser/sse-frames.js';

function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>) {
  const frames = [];
  for await (const frame of sseFrames(stream)) frames.push(frame);
  return frames;
}

describe('sseFrames', () => {
  it('reads frames split across chunks, skipping keep-alive comments', async () => {
    const frames = await collect(
      body('event: scan:queued\nid: 1\nda', 'ta: {"a":1}\n\n: keep-alive\n\n', 'event: scan:complete\r\nid: 2\r\ndata: {"b":2}\r\n\r\n'),
    );
    expect(frames).toEqual([
      { event: 'scan:queued', id: '1', data: '{"a":1}' },
      { event: 'scan:complete', id: '2', data: '{"b":2}' },
    ]);
  });

  it('reads a last frame the stream closed without a blank line after', async () => {
    expect(await collect(body('event: scan:failed\ndata: {}'))).toEqual([{ event: 'scan:failed', id: '', data: '{}' }]);
  });

  it('reads multi-byte text split inside a character', async () => {
    const bytes = new TextEncoder().encode('data: “banner”\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    expect(await collect(stream)).toEqual([{ event: 'message', id: '', data: '“banner”' }]);
  });
});

describe('a frame', () => {
  it('joins data lines, takes a field without a space after the colon, and ignores a frame of comments', async () => {
    expect(await collect(body('event:x\ndata:one\ndata: two\n\n'))).toEqual([{ event: 'x', id: '', data: 'one\ntwo' }]);
    expect(await collect(body(': keep-alive\n\n'))).toEqual([]);
  });
});
