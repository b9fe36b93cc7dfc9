// The numbers that bound a probe: the reply wait follows the path (four
// connect times, never under the floor), and a certificate's names are read
// but never more of them than the cap.
import { expect, it } from 'vitest';

import { REPLY_CONNECT_TIMES, REPLY_FLOOR_MS, replyWaitMs } from '../../src/exposure/probe-connection.js';
import { MAX_SANS, subjectAltNames } from '../../src/exposure/tls-probe.js';

it('waits the floor on loopback and four connect times across a long path', () => {
  expect(REPLY_FLOOR_MS).toBe(200);
  expect(REPLY_CONNECT_TIMES).toBe(4);
  expect(replyWaitMs(0)).toBe(200);
  expect(replyWaitMs(20)).toBe(200);
  expect(replyWaitMs(150)).toBe(600);
  expect(replyWaitMs(150.2)).toBe(601);
});

it("reads DNS and IP names from Node's subjectaltname, JSON-quoted ones too, and nothing else", () => {
  expect(subjectAltNames('DNS:a.test, IP Address:192.0.2.1, email:x@y.test, URI:https://u.test/, DNS:"we,ird", IP Address:2001:DB8:0:0:0:0:0:1')).toEqual([
    'a.test',
    '192.0.2.1',
    'we,ird',
    '2001:DB8:0:0:0:0:0:1',
  ]);
  expect(subjectAltNames(undefined)).toEqual([]);
});

it('keeps at most MAX_SANS names, each printable and short', () => {
  const many = Array.from({ length: 1000 }, (_, i) => `DNS:${'x'.repeat(300)}${i}`).join(', ');
  const names = subjectAltNames(many);
  expect(names).toHaveLength(MAX_SANS);
  expect(names[0]).toBe('x'.repeat(200));
  expect(subjectAltNames('DNS:"a\\u0001b\\u00e9"')).toEqual(['a.b.']);
});
