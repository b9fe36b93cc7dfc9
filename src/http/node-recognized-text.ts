// The seam passes names and values as text or as their bytes (uWS reads
// bytes without converting them); Node's http wants text.
import type { RecognizedString } from './seam.js';

const utf8 = new TextDecoder();
/** Names given as bytes are the code's own constants (`ORIGIN`, `REGIONS`): decoded once each. */
const decoded = new WeakMap<object, string>();

/** `value` as text. */
export function bytesAsText(value: RecognizedString): string {
  if (typeof value === 'string') return value;
  let text = decoded.get(value);
  if (text === undefined) decoded.set(value, (text = utf8.decode(value)));
  return text;
}
