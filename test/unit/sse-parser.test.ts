// The one Server-Sent Events reader (the page's and the check client's):
// events split anywhere across chunks, CRLF and LF line ends, comments
// (keep-alives) dropped, ids kept.
import { expect, it } from 'vitest';

import { type SseMessage, SseParser } from '../../src/api/sse-parser.js';

function parse(chunks: string[]): SseMessage[] {
  const events: SseMessage[] = [];
  const parser = new SseParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  return events;
}

const STREAM = ': keep-alive\n\nid: 1\nevent: scan:queued\ndata: {"a":1}\n\nevent: scan:progress\ndata: {"b":\ndata: 2}\n\n';

it('reads every event, whole or cut into single characters', () => {
  const expected = [
    { event: 'scan:queued', id: '1', data: '{"a":1}' },
    { event: 'scan:progress', id: '', data: '{"b":\n2}' },
  ];
  expect(parse([STREAM])).toEqual(expected);
  expect(parse([...STREAM])).toEqual(expected);
});

it('reads CRLF line ends, also when CR and LF arrive in different chunks', () => {
  const crlf = STREAM.replace(/\n/g, '\r\n');
  const expected = parse([STREAM]);
  expect(parse([crlf])).toEqual(expected);
  expect(parse([...crlf])).toEqual(expected);
});

it('holds back an event until its blank line', () => {
  expect(parse(['event: scan:complete\ndata: {}\n'])).toEqual([]);
});
