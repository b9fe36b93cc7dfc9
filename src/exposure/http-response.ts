// HTTP/1.x responses read from raw bytes, because the probes bound what they
// read themselves (time and bytes) and a hostile server must not stall or
// bloat a client library: the response's end (so a probe stops reading when
// it has it) and its status, headers and body (de-chunked). Tolerant of what
// is cut off: a probe reads at most 64 KiB.

/** One HTTP response, or as much of it as arrived. */
export interface HttpResponse {
  status: number;
  /** Header fields in order, names lowercased, values trimmed. */
  headers: ReadonlyArray<readonly [name: string, value: string]>;
  /** The body (de-chunked), or as much of it as arrived. */
  body: Buffer;
  /** The whole body arrived (by Content-Length or the last chunk). */
  complete: boolean;
}

const STATUS_LINE = /^HTTP\/[0-9](?:\.[0-9])? ([0-9]{3})(?:[ \t].*)?$/;

/** The first value of header `name` (lowercase), or null. */
export function headerValue(response: HttpResponse, name: string): string | null {
  for (const [field, value] of response.headers) if (field === name) return value;
  return null;
}

/** The response in `bytes` (after any interim 1xx responses), or null when they do not start with an HTTP status line. */
export function parseHttpResponse(bytes: Buffer): HttpResponse | null {
  let start = 0;
  for (;;) {
    const head = readHead(bytes, start);
    if (head === null) return null;
    if (head.status >= 100 && head.status < 200 && head.status !== 101 && head.bodyStart !== null) {
      start = head.bodyStart; // an interim answer: the real one follows
      continue;
    }
    if (head.bodyStart === null) return { status: head.status, headers: head.headers, body: Buffer.alloc(0), complete: false };
    return { status: head.status, headers: head.headers, ...readBody(bytes.subarray(head.bodyStart), head) };
  }
}

/**
 * A check that says, for the bytes received so far on one connection (each
 * call with all of them), whether a whole response has arrived. Stateful, so
 * a response that trickles in is not re-parsed from its start each time.
 */
export function responseEndWatcher(): (bytes: Buffer) => boolean {
  let start = 0;
  let scanned = 0;
  let framing: Framing | null = null;
  let nextChunk = 0;
  return (bytes) => {
    while (framing === null) {
      if (bytes.length - start >= 5 && bytes.toString('latin1', start, start + 5) !== 'HTTP/') return true; // not HTTP: nothing to wait for
      const end = headEnd(bytes, Math.max(start, scanned - 3));
      if (end === null) {
        scanned = bytes.length;
        return false;
      }
      const head = readHead(bytes, start);
      if (head === null) return true;
      scanned = end;
      if (head.status >= 100 && head.status < 200 && head.status !== 101) {
        start = end;
        continue;
      }
      framing = framingOf(head);
      nextChunk = end;
      start = end;
    }
    if (framing.kind === 'length') return bytes.length - start >= framing.length;
    if (framing.kind === 'none') return true;
    if (framing.kind === 'close') return false;
    for (;;) {
      const chunk = readChunkHeader(bytes, nextChunk);
      if (chunk === 'incomplete') return false;
      if (chunk === 'bad' || chunk.size === 0) return true;
      nextChunk = chunk.dataStart + chunk.size + 2;
      if (nextChunk > bytes.length) return false;
    }
  };
}

interface Head {
  status: number;
  headers: Array<readonly [string, string]>;
  /** Where the body starts, or null when the header section is cut off. */
  bodyStart: number | null;
}

type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' } | { kind: 'none' };

function readHead(bytes: Buffer, start: number): Head | null {
  const end = headEnd(bytes, start);
  const text = bytes.toString('latin1', start, end ?? bytes.length);
  const lines = text.split(/\r?\n/);
  const match = STATUS_LINE.exec(lines[0]!.trimEnd());
  if (match === null) return null;
  // Without the header section's end, the last line may be cut: drop it.
  const fieldLines = end === null ? lines.slice(1, -1) : lines.slice(1);
  const headers: Array<readonly [string, string]> = [];
  for (const line of fieldLines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return { status: Number(match[1]), headers, bodyStart: end };
}

/** The index just after the blank line that ends the header section starting at `from`, or null. */
function headEnd(bytes: Buffer, from: number): number | null {
  for (let i = bytes.indexOf(0x0a, from); i >= 0; i = bytes.indexOf(0x0a, i + 1)) {
    if (bytes[i + 1] === 0x0a) return i + 2;
    if (bytes[i + 1] === 0x0d && bytes[i + 2] === 0x0a) return i + 3;
  }
  return null;
}

function framingOf(head: Pick<Head, 'status' | 'headers'>): Framing {
  if (head.status === 204 || head.status === 304) return { kind: 'none' };
  const lookup = (name: string) => head.headers.find(([field]) => field === name)?.[1] ?? null;
  if (/chunked/i.test(lookup('transfer-encoding') ?? '')) return { kind: 'chunked' };
  const length = lookup('content-length');
  if (length !== null && /^[0-9]{1,15}$/.test(length)) return { kind: 'length', length: Number(length) };
  return { kind: 'close' };
}

function readBody(rest: Buffer, head: Head): { body: Buffer; complete: boolean } {
  const framing = framingOf(head);
  switch (framing.kind) {
    case 'none':
      return { body: Buffer.alloc(0), complete: true };
    case 'length':
      return { body: rest.subarray(0, framing.length), complete: rest.length >= framing.length };
    case 'close':
      return { body: rest, complete: false };
    case 'chunked':
      return dechunk(rest);
  }
}

function dechunk(rest: Buffer): { body: Buffer; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const chunk = readChunkHeader(rest, at);
    if (chunk === 'incomplete' || chunk === 'bad') return { body: Buffer.concat(parts), complete: false };
    if (chunk.size === 0) return { body: Buffer.concat(parts), complete: true };
    const data = rest.subarray(chunk.dataStart, chunk.dataStart + chunk.size);
    parts.push(data);
    if (data.length < chunk.size) return { body: Buffer.concat(parts), complete: false };
    at = chunk.dataStart + chunk.size + 2;
  }
}

function readChunkHeader(bytes: Buffer, at: number): { size: number; dataStart: number } | 'incomplete' | 'bad' {
  const lineEnd = bytes.indexOf(0x0a, at);
  if (lineEnd < 0) return bytes.length - at > 64 ? 'bad' : 'incomplete';
  const size = /^\s*([0-9a-fA-F]{1,8})\s*(?:;.*)?$/.exec(bytes.toString('latin1', at, lineEnd).replace(/\r$/, ''));
  if (size === null) return 'bad';
  return { size: Number.parseInt(size[1]!, 16), dataStart: lineEnd + 1 };
}
