// HTTP responses read from raw bytes: status, headers, body by length or by
// chunks, cut-off answers, and the watcher that says when one has ended,
// whatever the bytes were split into.
import { describe, expect, it } from 'vitest';

import { headerValue, parseHttpResponse, responseEndWatcher } from '../../src/exposure/http-response.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');

/** Feeds `text` to a new watcher in pieces of `step` bytes; the length at which it first said "ended", or null. */
function endsAt(text: string, step = 1): number | null {
  const watcher = responseEndWatcher();
  for (let length = step; length < text.length + step; length += step) {
    if (watcher(bytes(text.slice(0, length)))) return Math.min(length, text.length);
  }
  return null;
}

const LENGTH = 'HTTP/1.1 301 Moved Permanently\r\nLocation: https://x.test/\r\nStrict-Transport-Security: max-age=1\r\nContent-Length: 5\r\n\r\nhello';
const CHUNKED = 'HTTP/1.1 200 OK\r\nServer: nginx\r\nTransfer-Encoding: chunked\r\n\r\n4;ext=1\r\n<tit\r\n6\r\nle>ab<\r\n0\r\n\r\n';

describe('parseHttpResponse', () => {
  it('reads status, headers (lowercased) and a body by Content-Length', () => {
    const response = parseHttpResponse(bytes(`${LENGTH}extra`))!;
    expect(response.status).toBe(301);
    expect(headerValue(response, 'location')).toBe('https://x.test/');
    expect(headerValue(response, 'strict-transport-security')).toBe('max-age=1');
    expect(headerValue(response, 'server')).toBeNull();
    expect(response.body.toString()).toBe('hello');
    expect(response.complete).toBe(true);
  });

  it('de-chunks a chunked body', () => {
    const response = parseHttpResponse(bytes(CHUNKED))!;
    expect(response.body.toString()).toBe('<title>ab<');
    expect(response.complete).toBe(true);
    const cut = parseHttpResponse(bytes(CHUNKED.slice(0, -12)))!;
    expect(cut.body.toString()).toBe('<titl'); // what arrived of the cut chunk is kept
    expect(cut.complete).toBe(false);
  });

  it('skips an interim 100 Continue', () => {
    expect(parseHttpResponse(bytes(`HTTP/1.1 100 Continue\r\n\r\n${LENGTH}`))?.status).toBe(301);
  });

  it('keeps the headers that arrived of a header section cut off, dropping the cut line', () => {
    const response = parseHttpResponse(bytes('HTTP/1.0 200 OK\nServer: a\nX-Long: bbbb'))!;
    expect(response.status).toBe(200);
    expect(response.headers).toEqual([['server', 'a']]);
    expect(response.complete).toBe(false);
  });

  it('reads a close-delimited body as incomplete', () => {
    const response = parseHttpResponse(bytes('HTTP/1.0 200 OK\r\n\r\nbody'))!;
    expect(response.body.toString()).toBe('body');
    expect(response.complete).toBe(false);
  });

  it('is null for what is not HTTP', () => {
    expect(parseHttpResponse(bytes('SSH-2.0-x\r\n'))).toBeNull();
    expect(parseHttpResponse(bytes('HTTP/1.1 20 OK\r\n\r\n'))).toBeNull();
    expect(parseHttpResponse(Buffer.alloc(0))).toBeNull();
    expect(parseHttpResponse(bytes('\x16\x03\x01\x02\x00'))).toBeNull();
  });
});

describe('responseEndWatcher', () => {
  it('says a response by length ended at its last byte, fed a byte at a time or in pieces', () => {
    expect(endsAt(LENGTH)).toBe(LENGTH.length);
    expect(endsAt(`${LENGTH}more`, 7)).toBe(LENGTH.length + 7 - (LENGTH.length % 7));
  });

  it('says a chunked response ended at its last chunk', () => {
    expect(endsAt(CHUNKED)).toBe(CHUNKED.length - 2); // "0\r\n" is the last chunk; the trailer's CRLF is not awaited
  });

  it('waits for a close when the body has no length, and not at all after 204 or for what is not HTTP', () => {
    expect(endsAt('HTTP/1.0 200 OK\r\n\r\n<html>')).toBeNull();
    expect(endsAt('HTTP/1.1 204 No Content\r\n\r\n')).toBe(27);
    expect(endsAt('-ERR wrong\r\n')).toBe(5);
  });

  it('waits past an interim 100 Continue', () => {
    const text = `HTTP/1.1 100 Continue\r\n\r\n${LENGTH}`;
    expect(endsAt(text)).toBe(text.length);
  });
});
