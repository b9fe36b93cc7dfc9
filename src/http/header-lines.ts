// uWS's getHeader gives only the first line of a repeated header, but a list
// header's value is all of its lines in order (RFC 9110 §5.3): reading the
// first alone lets whoever wrote it speak for the lines after it.
import type { HttpRequest } from './seam.js';

/** Every line of header `name` (lower case), in the order received; read synchronously in the uWS handler. */
export function headerLines(req: HttpRequest, name: string): string[] {
  const lines: string[] = [];
  req.forEach((key, value) => {
    if (key === name) lines.push(value);
  });
  return lines;
}
