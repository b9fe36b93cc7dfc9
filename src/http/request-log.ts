// The one log line per request, in pino's own format and stream, built as
// a string: on a cached GET, pino's generic serialisation of the fields
// costs more than everything else the request does. The constant parts of
// a line are joined once, so that each line is a few pieces to copy.
import { type Logger, pino } from 'pino';

/** Logs a request answered with `status` after `ms` milliseconds (written whole). */
export type RequestLog = (method: string, path: string, ip: string, status: string, ms: number) => void;

/** Text that needs no JSON escaping (JSON.stringify is costly on a hot path). */
const PLAIN = /^[\w./:-]*$/;

function quoted(text: string): string {
  return PLAIN.test(text) ? `"${text}"` : JSON.stringify(text);
}

/** Method-and-path parts kept per method; the paths of unknown URLs (404s) are many, so the cache is bounded. */
const MAX_ROUTE_PARTS = 256;

export function createRequestLog(logger: Logger): RequestLog {
  if (!logger.isLevelEnabled('info')) return () => {};
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write(line: string): unknown };
  const bindings = internals[pino.symbols.chindingsSym] as string; // ,"pid":…,"hostname":…,"name":…
  const head = `{"level":${logger.levels.values.info},"time":`;
  // Many requests share a millisecond; its line start is made once.
  let lastTime = 0;
  let lastStart = '';
  const routeParts = new Map<string, Map<string, string>>(); // method, then path
  const routePart = (method: string, path: string): string => {
    let byPath = routeParts.get(method);
    if (byPath === undefined) {
      if (routeParts.size >= MAX_ROUTE_PARTS) routeParts.clear(); // methods are the client's text too
      routeParts.set(method, (byPath = new Map()));
    }
    let part = byPath.get(path);
    if (part === undefined) {
      part = `${bindings},"event":"request","method":${quoted(method)},"path":${quoted(path)},"ip":"`;
      if (byPath.size >= MAX_ROUTE_PARTS) byPath.clear();
      byPath.set(path, part);
    }
    return part;
  };
  // Statuses are ours (a status code, `aborted`, an error code): a few dozen parts, kept.
  const statusParts = new Map<string, string>();
  const statusPart = (status: string): string => {
    let part = statusParts.get(status);
    if (part === undefined) statusParts.set(status, (part = `","status":${quoted(status)},"ms":`));
    return part;
  };
  return (method, path, ip, status, ms) => {
    const time = Date.now();
    if (time !== lastTime) {
      lastTime = time;
      lastStart = head + String(time);
    }
    stream.write(`${lastStart}${routePart(method, path)}${ip}${statusPart(status)}${Math.round(ms)},"msg":"request"}\n`);
  };
}
