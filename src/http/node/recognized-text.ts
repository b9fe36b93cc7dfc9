// The seam passes names and values as text or as their bytes (uWS reads
// bytes without converting them); Node's http wants text.
import type { RecognizedString } from '../seam.js';

const utf8 = new TextDecoder();

/** `value` as text. */
export function bytesAsText(value: RecognizedString): string {
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString();
  return utf8.decode(value);
}
