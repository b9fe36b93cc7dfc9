// Page titles as a tab shows them: entities decoded, white space collapsed,
// printable and short, also when the page is cut off.
import { expect, it } from 'vitest';

import { decodeEntities, htmlTitle } from '../../src/exposure/html-title.js';

it('reads the first title, entities decoded and white space collapsed', () => {
  expect(htmlTitle('<html><head><TITLE lang="en">\n  Tom &amp; Jerry &lt;3&gt; &quot;x&quot; &#39;y&#x27;\t</TITLE><title>two</title>')).toBe(
    `Tom & Jerry <3> "x" 'y'`,
  );
});

it('is null without a title or with an empty one', () => {
  expect(htmlTitle('<html><body>hi</body></html>')).toBeNull();
  expect(htmlTitle('<title>   </title>')).toBeNull();
  expect(htmlTitle('{"title": "json"}')).toBeNull();
});

it('takes what arrived of a title that never closes, cut to 200 printable characters', () => {
  const title = htmlTitle(`<title>${'é\x00ab '.repeat(2_000_000)}`);
  expect(title).toHaveLength(200);
  expect(title).toMatch(/^[ -~]+$/);
  expect(title!.startsWith('..ab ..ab')).toBe(true);
});

it('keeps entities it does not know, and out-of-range numbers', () => {
  expect(decodeEntities('&copy; &#0; &#x110000; &nbsp;&gt')).toBe('&copy; &#0; &#x110000;  &gt');
});
