// What an X-Callback-Url must be at the POST: its form, and, when its host
// is an IP literal, an address webhooks are delivered to.
import { describe, expect, it } from 'vitest';

import { refuseCallbackUrl } from '../../src/webhook/callback-url.js';

describe('refuseCallbackUrl', () => {
  it('takes public literals and host names', () => {
    for (const url of [
      'https://hooks.example.com/x',
      'http://192.0.2.1.nip.example/x',
      'http://8.8.8.8:8080/x',
      'https://[2606:4700::1]/x',
      'http://localhost/x',
    ]) {
      expect(refuseCallbackUrl(url, false), url).toBeNull();
    }
  });

  it.each([
    ['http://127.0.0.1:8080/a', 'loopback'],
    ['http://10.0.0.1/b', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['http://0.0.0.0/c', 'unspecified'],
    ['http://[::1]/d', 'loopback'],
    ['http://[fd00::1]/e', 'uniqueLocal'],
    ['http://[::ffff:127.0.0.1]/f', 'loopback'], // IPv4-mapped
    ['http://2130706433/g', 'loopback'], // 127.0.0.1 as one number: the URL parser reads it so
    ['http://0x7f.1/h', 'loopback'],
    ['http://[2002:a00:1::]/i', '6to4 carrying 10.0.0.1'],
  ])('refuses a literal the delivery policy refuses: %s', (url, why) => {
    expect(refuseCallbackUrl(url, false)).toContain(why);
    expect(refuseCallbackUrl(url, true)).toBeNull(); // allowPrivateCallbacks
  });

  it('still refuses malformed URLs first', () => {
    expect(refuseCallbackUrl('ftp://10.0.0.1/x', true)).toBe('X-Callback-Url must use http or https');
    expect(refuseCallbackUrl('not a url', false)).toBe('X-Callback-Url must be an absolute http or https URL');
  });
});
