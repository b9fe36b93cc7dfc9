// Which form posts the no-JavaScript path accepts: its own page's (also
// when the browser sends `Origin: null`, as Chromium does under the page's
// `Referrer-Policy: no-referrer`), never another site's.
import { describe, expect, it } from 'vitest';

import { isSameSitePost } from '../../src/web/scan-form-route.js';

describe('isSameSitePost', () => {
  it("accepts the page's own post, whatever Origin the browser sent", () => {
    expect(isSameSitePost('same-origin', 'null', 'scan.example')).toBe(true);
    expect(isSameSitePost('same-origin', 'https://scan.example', 'scan.example')).toBe(true);
  });

  it('refuses a post from another site or origin', () => {
    expect(isSameSitePost('cross-site', 'https://evil.example', 'scan.example')).toBe(false);
    expect(isSameSitePost('same-site', 'https://other.scan.example', 'scan.example')).toBe(false);
  });

  it('judges by Origin when the browser sends no Sec-Fetch-Site', () => {
    expect(isSameSitePost('', 'https://scan.example', 'scan.example')).toBe(true);
    expect(isSameSitePost('', 'https://evil.example', 'scan.example')).toBe(false);
    expect(isSameSitePost('', 'null', 'scan.example')).toBe(false);
    expect(isSameSitePost('', '', 'scan.example')).toBe(true);
  });
});
