// Port lists as people write them on the command line and in a policy
// file: `22,443,8000-8099`.
import { UsageError } from './usage-error.js';

/** The ports of `text` (`22,443,8000-8099`), sorted, each once; throws UsageError. */
export function parsePortList(text: string): number[] {
  const ports = new Set<number>();
  for (const item of text.split(',')) {
    const match = /^\s*(\d{1,5})(?:\s*-\s*(\d{1,5}))?\s*$/.exec(item);
    if (match === null) throw new UsageError(`not a port or range: ${JSON.stringify(item)} (write ports like 22,443,8000-8099)`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (from < 1 || to > 65535 || from > to) throw new UsageError(`not a port range within 1-65535: ${JSON.stringify(item.trim())}`);
    for (let port = from; port <= to; port++) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}
