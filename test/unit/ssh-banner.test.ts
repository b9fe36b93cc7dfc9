// The SSH facts split from the identification string the sweep read.
import { expect, it } from 'vitest';

import { parseSshBanner } from '../../src/exposure/ssh-banner.js';

it('splits protocol, software and comment', () => {
  expect(parseSshBanner('SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3')).toEqual({ protocol: '2.0', software: 'OpenSSH_9.2p1', comment: 'Debian-2+deb12u3' });
});

it('has a null comment when there is none, and reads only the first line', () => {
  expect(parseSshBanner('SSH-1.99-Cisco-1.25\n....kex')).toEqual({ protocol: '1.99', software: 'Cisco-1.25', comment: null });
});

it('keeps a comment with spaces', () => {
  expect(parseSshBanner('SSH-2.0-dropbear_2022.83 some build notes')?.comment).toBe('some build notes');
});

it('refuses what is not an identification string', () => {
  expect(parseSshBanner('HTTP/1.1 200 OK')).toBeNull();
  expect(parseSshBanner('SSH-2.0')).toBeNull();
  expect(parseSshBanner('SSH-x.y-OpenSSH')).toBeNull();
});

it('makes a hostile software name printable and short', () => {
  const facts = parseSshBanner(`SSH-2.0-${'A\x01'.repeat(500)}`);
  expect(facts?.software).toHaveLength(200);
  expect(facts?.software).toMatch(/^[A.]+$/);
});
