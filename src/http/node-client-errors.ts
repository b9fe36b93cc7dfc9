// What Node's parser refuses before any route sees it (the server's
// 'clientError'), answered as a JSON Error and the connection closed
// (RFC 9112 §9.6): a head over the limit 431, a method it does not know
// 501, a head or body that came too slowly 408, any framing error
// (conflicting Content-Length, Content-Length beside Transfer-Encoding, a bad
// chunk size, a malformed line) 400. Bytes after the error are never read.
import type { Socket } from 'node:net';

import { ApiError } from '../api/api-error.js';
import { markClosing } from './node-closing-sockets.js';

/** llhttp's and Node's codes that are not a plain 400. */
const REFUSALS: Readonly<Record<string, () => ApiError>> = {
  HPE_HEADER_OVERFLOW: () => new ApiError('headers_too_large', 'the request head is over 16 KiB'),
  HPE_INVALID_METHOD: () => new ApiError('not_implemented', 'the request method is not one this server knows'),
  ERR_HTTP_REQUEST_TIMEOUT: () => new ApiError('request_timeout', 'the request did not arrive in time'),
};

/** The refusal of a parse error. */
export function refusalOf(error: Error & { code?: string; reason?: string }): ApiError {
  return REFUSALS[error.code ?? '']?.() ?? new ApiError('bad_request', `the request cannot be read safely: ${error.reason ?? 'malformed'}`);
}

/** The headers of every answer that refuses a request and closes its connection. */
export const REFUSAL_HEADERS: Readonly<Record<string, string>> = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

/** A refusal as the bytes of a whole answer that closes the connection (where no response object exists yet). */
function answerBytes(refusal: ApiError): string {
  const answer = refusal.answer({});
  const body = JSON.stringify(answer.body);
  const headers = Object.entries(REFUSAL_HEADERS).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${answer.status}\r\n${headers.join('')}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** The socket's response under way, if any (Node keeps it on the socket). */
type WithMessage = Socket & { _httpMessage?: { headersSent: boolean; writableFinished: boolean; once(event: 'finish', listener: () => void): void } | null };

/** How long a closing connection may take: a response under way to finish, then the answer to go out. */
const GRACE_MS = 2000;

/**
 * Answers `error` on `socket` and closes it. A parse error comes after the
 * requests before it: their answer under way goes out first (for up to
 * GRACE_MS). A timeout is about the request under way, which has no answer
 * yet: it is answered at once. Returns the refusal, or null for a
 * connection that was only closed (the client had gone, or it was
 * answered already).
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): ApiError | null {
  // Once per connection: the parser reports an error again for every read after the first.
  if (!markClosing(socket)) return null;
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return null;
  }
  const refusal = refusalOf(error);
  const answer = answerBytes(refusal);
  const pending = (socket as WithMessage)._httpMessage;
  const close = (): void => {
    // Behind a response cut short no other answer can follow: the connection is only closed.
    if (pending?.headersSent && !pending.writableFinished) socket.destroy();
    else socket.end(answer);
    setTimeout(() => socket.destroy(), GRACE_MS).unref();
  };
  if (pending && !pending.writableFinished && error.code !== 'ERR_HTTP_REQUEST_TIMEOUT') {
    const grace = setTimeout(close, GRACE_MS);
    pending.once('finish', () => {
      clearTimeout(grace);
      close();
    });
  } else close();
  return refusal;
}
