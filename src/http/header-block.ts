// Response header lines and status lines fixed in advance, encoded once.
// uWS converts every string it is given to UTF-8 on each call and copies a
// Buffer as it is: on the GET of a kept result, converting the same few
// header names and values cost more than anything else the answer does.

/** Headers that never change (a JSON answer's type and caching, a kept result's duration), as bytes. */
export class HeaderBlock {
  /** `\r\nName: value` per header: what may follow a status on its line. */
  private readonly text: string;
  /** Status lines with these headers, by status; with another block's after them, by that block, then status. */
  private readonly heads = new Map<string, Buffer>();
  private readonly headsWith = new WeakMap<HeaderBlock, Map<string, Buffer>>();

  constructor(headers: Readonly<Record<string, string>>) {
    const entries = Object.entries(headers);
    this.text = entries.map(([name, value]) => `\r\n${name}: ${value}`).join('');
  }

  /**
   * `status` with these headers and `more`'s, as one status "line": uWS
   * writes the status it is given between `HTTP/1.1 ` and CRLF, so the
   * head of an answer is one write of bytes encoded once, not a call and
   * two copies per header. Only fixed text of ours goes in, never a client's.
   */
  head(status: string, more?: HeaderBlock): Buffer {
    let byStatus = more === undefined ? this.heads : this.headsWith.get(more);
    if (byStatus === undefined) this.headsWith.set(more!, (byStatus = new Map()));
    let head = byStatus.get(status);
    if (head === undefined) byStatus.set(status, (head = Buffer.from(`${status}${this.text}${more?.text ?? ''}`)));
    return head;
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
