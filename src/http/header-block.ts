// Response header lines and status lines fixed in advance, encoded once.
// uWS converts every string it is given to UTF-8 on each call and copies a
// Buffer as it is: on the GET of a kept result, converting the same few
// header names and values cost more than anything else the answer does.
import type { HttpResponse } from './uws.js';

/** Headers that never change (a JSON answer's type and caching, a kept result's duration), as bytes. */
export class HeaderBlock {
  /** Name, value, name, value… */
  private readonly lines: Buffer[];

  constructor(readonly headers: Readonly<Record<string, string>>) {
    this.lines = Object.entries(headers).flatMap(([name, value]) => [Buffer.from(name), Buffer.from(value)]);
  }

  writeTo(res: HttpResponse): void {
    const lines = this.lines;
    for (let i = 0; i < lines.length; i += 2) res.writeHeader(lines[i]!, lines[i + 1]!);
  }
}

/** Status lines the code answers with: a few dozen constants, never a client's text. */
const statusLines = new Map<string, Buffer>();

/** `status` (`200 OK`) as bytes, encoded the first time it is answered. */
export function statusLine(status: string): Buffer {
  let line = statusLines.get(status);
  if (line === undefined) statusLines.set(status, (line = Buffer.from(status)));
  return line;
}
