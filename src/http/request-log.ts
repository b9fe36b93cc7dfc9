// The one log line per request, in pino's own format and stream, built as
// a string: on a cached GET, pino's generic serialisation of the fields
// costs more than everything else the request does.
import { pino, type Logger } from 'pino';

export type RequestLog = (method: string, path: string, ip: string, status: string, ms: number) => void;

export function createRequestLog(logger: Logger): RequestLog {
  if (!logger.isLevelEnabled('info')) return () => {};
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[pino.symbols.streamSym] as { write(line: string): unknown };
  const bindings = internals[pino.symbols.chindingsSym] as string; // ,"pid":…,"hostname":…,"name":…
  const info = logger.levels.values.info;
  return (method, path, ip, status, ms) => {
    stream.write(
      `{"level":${info},"time":${Date.now()}${bindings},"event":"request","method":${JSON.stringify(method)},` +
        `"path":${JSON.stringify(path)},"ip":"${ip}","status":${JSON.stringify(status)},"ms":${ms},"msg":"request"}\n`,
    );
  };
}
