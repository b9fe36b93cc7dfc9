// Text facts from hostile bytes: one printable ASCII line, cut short.
import { expect, it } from 'vitest';

import { MAX_TEXT_CHARS, printableText } from '../../src/exposure/printable-text.js';

it('drops CR, turns tab into a space and other control or non-ASCII characters into dots', () => {
  expect(printableText('a\r\nb\tc\x00d\x7fé€')).toBe('a.b c.d...');
});

it('cuts at the limit, also a huge input', () => {
  expect(printableText('x'.repeat(10_000_000))).toBe('x'.repeat(MAX_TEXT_CHARS));
  expect(printableText('abcdef', 3)).toBe('abc');
});
