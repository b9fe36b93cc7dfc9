// HTTP/1.1 as bytes on a raw TCP socket: what a hostile or broken client
// sends, and what comes back (status lines in order, whether and when the
// server closed), without a client library that would refuse or repair it.
import { connect } from 'node:net';

export interface RawAnswer {
  /** The status codes of the responses received, in order. */
  statuses: number[];
  /** Everything received, as latin1 text. */
  text: string;
  /** The server closed the connection (FIN or RST) before the wait ended. */
  closed: boolean;
  /** The connection ended in an error (a reset) rather than an orderly close. */
  reset: boolean;
  /** Milliseconds from the write to the close, or to the last expected answer, or to the end of the wait. */
  ms: number;
}

/** Which of the requests in `bytes`, in order, are HEAD requests (their answers have no body). */
export function headRequests(bytes: string | Buffer): boolean[] {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('latin1');
  return [...text.matchAll(/(?:^|\n)([!-~]+) \S+ HTTP\/1\.1\r\n/g)].map((match) => match[1] === 'HEAD');
}

/**
 * The status codes of the whole responses in `text`, read one after the
 * other by their Content-Length; `heads[i]`: the i-th answers a HEAD
 * request, so has no body.
 */
export function statusesOf(text: string, heads: readonly boolean[] = []): number[] {
  const statuses: number[] = [];
  let at = 0;
  for (;;) {
    const status = /^HTTP\/1\.1 (\d{3}) /.exec(text.slice(at, at + 13));
    const headEnd = text.indexOf('\r\n\r\n', at);
    if (status === null || headEnd < 0) return statuses;
    const bodyAt = headEnd + 4;
    const length = heads[statuses.length] ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(at, bodyAt))?.[1] ?? 0);
    if (text.length < bodyAt + length) return statuses;
    statuses.push(Number(status[1]));
    at = bodyAt + length;
  }
}

/**
 * Writes `bytes` to a new connection to `port` (from the loopback address
 * `from`, 127.0.0.1 unless given) and waits until the server closes it,
 * `answers` responses have arrived (then `settleMs` more for stray ones), or
 * `waitMs` pass.
 */
export function rawExchange(
  port: number,
  bytes: string | Buffer,
  options: { answers?: number; waitMs?: number; settleMs?: number; from?: string } = {},
): Promise<RawAnswer> {
  const { answers = Number.POSITIVE_INFINITY, waitMs = 2000, settleMs = 100, from } = options;
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', ...(from === undefined ? {} : { localAddress: from }) });
    const started = Date.now();
    const heads = headRequests(bytes);
    let text = '';
    let done = false;
    let reset = false;
    let settle: NodeJS.Timeout | undefined;
    const finish = (closed: boolean, at = Date.now()): void => {
      if (done) return;
      done = true;
      clearTimeout(wait);
      clearTimeout(settle);
      socket.destroy();
      resolve({ statuses: statusesOf(text, heads), text, closed, reset, ms: at - started });
    };
    const wait = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (settle === undefined && statusesOf(text, heads).length >= answers) {
        const at = Date.now();
        settle = setTimeout(() => finish(false, at), settleMs);
      }
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => {
      reset = true;
      finish(true);
    });
    socket.write(bytes);
  });
}
