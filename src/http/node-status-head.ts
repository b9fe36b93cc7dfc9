// What a front writes as a status: `200 OK`, or a status with fixed header
// lines after it (`200 OK\r\nContent-Type: application/json…`, made once by
// HeaderBlock for uWS, which writes it verbatim). Node's http takes the code,
// the reason and the headers apart, so each such head is split once and kept.

import { bytesAsText } from './node-recognized-text.js';
import type { RecognizedString } from './seam.js';

export interface StatusHead {
  code: number;
  reason: string;
  /** Header names and values, flat: name, value, name, value… */
  headers: readonly string[];
}

/** Heads given as bytes (HeaderBlock's, statusLine's): long-lived objects, so kept by identity. */
const byBytes = new WeakMap<object, StatusHead>();
/** Heads given as text: the code's own few dozen status lines; bounded all the same. */
const byText = new Map<string, StatusHead>();
const MAX_TEXT_HEADS = 256;

export function statusHead(status: RecognizedString): StatusHead {
  if (typeof status === 'string') {
    let head = byText.get(status);
    if (head === undefined) {
      if (byText.size >= MAX_TEXT_HEADS) byText.clear();
      byText.set(status, (head = parse(status)));
    }
    return head;
  }
  let head = byBytes.get(status);
  if (head === undefined) byBytes.set(status, (head = parse(bytesAsText(status))));
  return head;
}

function parse(text: string): StatusHead {
  const [line = '', ...headerLines] = text.split('\r\n');
  const space = line.indexOf(' ');
  const code = Number(space === -1 ? line : line.slice(0, space));
  if (!Number.isInteger(code) || code < 100 || code > 999) throw new TypeError(`not a status line: ${line}`);
  const headers: string[] = [];
  for (const header of headerLines) {
    const colon = header.indexOf(':');
    headers.push(header.slice(0, colon), header.slice(colon + 1).trim());
  }
  return { code, reason: space === -1 ? '' : line.slice(space + 1), headers };
}
