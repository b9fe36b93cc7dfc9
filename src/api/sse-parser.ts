// Server-Sent Events framing, read incrementally: text in, whole events
// out. One reader for every client of the v2 stream that cannot use
// EventSource: the page (which must see a refused start's status and
// body) and `selfscan check` (node: built-ins only). Comment lines (the
// keep-alives) are dropped; `event`, `id` and `data` fields are kept.

/** One event: its name, its id (empty when it has none) and its data lines joined. */
export interface SseMessage {
  event: string;
  id: string;
  data: string;
}

/** Feeds text in; calls `onEvent` for each complete event. */
export class SseParser {
  private buffer = '';
  private event = '';
  private id = '';
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

  /** The stream ended: an event cut off before its blank line is dispatched as it stands. */
  end(): void {
    if (this.buffer !== '') this.line(this.buffer.replace(/\r$/, ''));
    this.buffer = '';
    this.line('');
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) this.onEvent({ event: this.event || 'message', id: this.id, data: this.data.join('\n') });
      this.event = '';
      this.id = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') this.event = value;
    else if (field === 'id') this.id = value;
    else if (field === 'data') this.data.push(value);
  }
}
