// A Server-Sent Events stream of one scan. A reader that stops reading
// costs bounded memory: once the socket pushes back, queued progress events
// are coalesced to the latest, keep-alives are skipped, and the terminal
// event goes out in pieces as the socket drains.
import type { StreamEvent } from '../scan/scan-events.js';
import type { Exchange, Headers } from './exchange.js';

/** Largest piece written at once; the rest waits for the socket to drain. */
const PIECE_CHARS = 64 * 1024;

interface Piece {
  text: string;
  progress: boolean;
}

function format(event: StreamEvent): string {
  return `id: ${event.id}\nevent: ${event.name}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/** The headers that open a stream (the route's shared ones come beside them). */
export const SSE_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' };

export class SseStream {
  private queue: Piece[] = [];
  private backpressured = false;
  private ending = false;
  private closed = false;
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly exchange: Exchange,
    headers: Headers,
    keepAliveMs: number,
    private readonly onClose: () => void,
  ) {
    exchange.cork(() => {
      exchange.res.writeStatus('200 OK');
      const all: Headers = { ...SSE_HEADERS, ...headers };
      for (const [name, value] of Object.entries(all)) exchange.res.writeHeader(name, value);
      this.write(': stream open\n\n');
    });
    this.keepAlive = setInterval(() => {
      if (!this.backpressured && this.queue.length === 0) this.exchange.cork(() => this.write(': keep-alive\n\n'));
    }, keepAliveMs);
    exchange.onAbort(() => this.close());
  }

  send(event: StreamEvent): void {
    if (this.ending || this.closed) return;
    const text = format(event);
    if (event.terminal) {
      this.queue = this.queue.filter((piece) => !piece.progress); // superseded by the result
      for (let at = 0; at < text.length; at += PIECE_CHARS) this.queue.push({ text: text.slice(at, at + PIECE_CHARS), progress: false });
      this.ending = true;
    } else if (event.name === 'scan:progress' && this.queue.at(-1)?.progress) {
      this.queue[this.queue.length - 1] = { text, progress: true };
    } else {
      this.queue.push({ text, progress: event.name === 'scan:progress' });
    }
    this.exchange.cork(() => this.flush());
  }

  private flush(): void {
    while (!this.backpressured && this.queue.length > 0) this.write(this.queue.shift()!.text);
    if (!this.backpressured && this.ending && this.queue.length === 0 && !this.closed) {
      this.exchange.endStream();
      this.close();
    }
  }

  /** Writes (uWS keeps what the socket cannot take yet) and notes pushback. */
  private write(text: string): void {
    if (this.exchange.writeChunk(text)) return;
    this.backpressured = true;
    this.exchange.res.onWritable(() => {
      this.backpressured = false;
      this.flush();
      return !this.backpressured;
    });
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    this.queue = [];
    this.onClose();
  }
}
