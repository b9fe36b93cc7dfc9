// Server-Sent Events framing, read incrementally: bytes in, whole events
// out. Comment lines (the keep-alives) are dropped.

/** One event: its name and data lines joined. */
export interface SseMessage {
  event: string;
  data: string;
}

/** Feeds text in; calls `onEvent` for each complete event. */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  constructor(private readonly onEvent: (message: SseMessage) => void) {}

  push(text: string): void {
    this.buffer += text;
    let end: number;
    while ((end = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      if (end === this.buffer.length - 1 && this.buffer[end] === '\r') break; // a \n may follow in the next chunk
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + (this.buffer.startsWith('\r\n', end) ? 2 : 1));
      this.line(line);
    }
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.onEvent({ event: this.event || 'message', data: this.data.join('\n') });
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
  }
}
