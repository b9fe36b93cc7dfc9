// The changes a scan shows against the fingerprint of the last one, and
// what a fingerprint keeps of a banner.
import { describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { bannerKey, changesSince, fingerprintOf } from '../../src/exposure/fingerprint.js';

const open = (port: number, banner: string | null, extra: Partial<Port> = {}): Port => ({ port, state: 'open', service: null, banner, ...extra });
const risk = (severity: 'info' | 'high') => ({ severity, why: 'w', fix: 'f' });

describe('bannerKey', () => {
  it('ignores what changes per connection: the HTTP headers but status and Server, clock readings', () => {
    const first = 'HTTP/1.1 200 OK\nDate: Wed, 25 Nov 2026 10:42:07 GMT\nServer: nginx/1.22.1\nContent-Length: 12';
    const later = 'HTTP/1.1 200 OK\nDate: Thu, 26 Nov 2026 11:00:00 GMT\nServer: nginx/1.22.1\nContent-Length: 99';
    expect(bannerKey(first)).toBe(bannerKey(later));
    expect(bannerKey(first)).not.toBe(bannerKey(later.replace('nginx/1.22.1', 'nginx/1.24.0')));
    expect(bannerKey('220 mail ESMTP ready at 10:42:07')).toBe(bannerKey('220 mail ESMTP ready at 23:01:59'));
    expect(bannerKey('SSH-2.0-OpenSSH_9.2p1')).not.toBe(bannerKey('SSH-2.0-OpenSSH_9.6p1'));
    expect(bannerKey(null)).toBeNull();
    expect(bannerKey('SSH-2.0-OpenSSH_9.2p1')).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('changesSince', () => {
  const cert = (sha: string) => ({ facts: { tls: { sha256: sha } } }) as unknown as Partial<Port>;
  const before = fingerprintOf(1_700_000_000_000, [
    open(22, 'SSH-2.0-OpenSSH_9.2p1', { risk: risk('info') }),
    open(443, null, { ...cert('a'.repeat(64)), risk: risk('info') }),
    open(6379, '-NOAUTH', { risk: risk('info') }),
    open(8080, null),
  ]);

  it('names opened, closed and changed ports, and when the earlier scan ended', () => {
    const after = fingerprintOf(1_700_086_400_000, [
      open(22, 'SSH-2.0-OpenSSH_9.6p1', { risk: risk('info') }),
      open(443, null, { ...cert('b'.repeat(64)), risk: risk('info') }),
      open(6379, '-NOAUTH', { risk: risk('high') }),
      open(3306, null),
    ]);
    expect(changesSince(before, after, true)).toStrictEqual({
      since: 1_700_000_000,
      opened: [3306],
      closed: [8080],
      changed: [
        { port: 22, what: ['banner'], severity_before: 'info', severity_after: 'info' },
        { port: 443, what: ['certificate'], severity_before: 'info', severity_after: 'info' },
        { port: 6379, what: ['severity'], severity_before: 'info', severity_after: 'high' },
      ],
    });
  });

  it('names no closed port after an incomplete scan, and nothing when nothing changed', () => {
    const partial = fingerprintOf(1_700_086_400_000, [open(22, 'SSH-2.0-OpenSSH_9.2p1', { risk: risk('info') })]);
    expect(changesSince(before, partial, false)).toStrictEqual({ since: 1_700_000_000, opened: [], closed: [], changed: [] });
    expect(changesSince(before, before, true)).toStrictEqual({ since: 1_700_000_000, opened: [], closed: [], changed: [] });
  });

  it('keeps no banner text in a fingerprint', () => {
    expect(JSON.stringify(before)).not.toContain('OpenSSH');
  });
});
