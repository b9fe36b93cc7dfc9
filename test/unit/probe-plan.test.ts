// Which probes an open port gets, from its number and the sweep's banner.
import { expect, it } from 'vitest';

import { planProbes } from '../../src/exposure/probe-plan.js';

const plan = (port: number, banner: string | null) => planProbes({ port, banner });
const none = { ssh: false, tls: false, http: false, docker: false, redis: false, memcached: false, mongodb: false };

it('reads SSH from its banner only, on any port, and tries no TLS there', () => {
  expect(plan(2222, 'SSH-2.0-OpenSSH_9.2p1')).toEqual({ ...none, ssh: true });
});

it('tries TLS on a silent port, HTTP too where HTTP usually listens', () => {
  expect(plan(4443, null)).toEqual({ ...none, tls: true });
  expect(plan(8080, null)).toEqual({ ...none, tls: true, http: true, docker: true });
});

it('tries HTTP, Docker and TLS on a port that answered HTTP, whatever its number', () => {
  expect(plan(1234, 'HTTP/1.1 400 Bad Request')).toEqual({ ...none, tls: true, http: true, docker: true });
});

it('knows Redis by its answer on any port, and by its port', () => {
  expect(plan(7000, "-ERR wrong number of arguments for 'get' command")).toEqual({ ...none, redis: true });
  expect(plan(7001, '-NOAUTH Authentication required.')).toEqual({ ...none, redis: true });
  expect(plan(6379, null)).toEqual({ ...none, tls: true, redis: true });
});

it('knows Memcached, MongoDB and Docker by their ports, MongoDB also by its HTTP answer', () => {
  expect(plan(11211, 'ERROR\nERROR')).toEqual({ ...none, memcached: true });
  expect(plan(27017, null)).toEqual({ ...none, tls: true, mongodb: true });
  expect(plan(4000, 'HTTP/1.0 200 OK\nIt looks like you are trying to access MongoDB over HTTP on the native driver port.')).toEqual({
    ...none,
    tls: true,
    mongodb: true,
  });
  expect(plan(2375, null)).toEqual({ ...none, tls: true, http: true, docker: true });
  expect(plan(2376, null)).toEqual({ ...none, tls: true }); // Docker over TLS follows the handshake
});

it('tries no TLS after a cleartext greeting', () => {
  for (const banner of ['220 mail.test ESMTP', '+OK POP3 ready', '* OK IMAP4rev1', 'RFB 003.008']) expect(plan(2525, banner).tls).toBe(false);
});
