// The udp scan's fixture host (support/udp-services-host.ts) does what its
// tests and benchmark rely on, seen from the root namespace over IPv4 and
// IPv6: each of Debian's real servers answers a minimal request, a dropped
// port stays silent (no ICMP either), a closed port is refused, the private
// SNMP agent ignores `public`, a path delays datagrams and port unreachables
// alike, and close() leaves nothing running. Needs root.
import { execFileSync } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { isAlive } from '../../support/netns-host.js';
import { createUdpServicesHost, UDP_SERVERS, type UdpServicesHost } from '../../support/udp-services-host.js';
import { dnsAddress, dnsQuery, MINIMAL_REQUESTS, snmpGetSysDescr, tftpAck } from './minimal-requests.js';
import { exchange } from './udp-exchange.js';

const DROPPED_PORT = 5060;
/** discard: nothing listens on it. */
const CLOSED_PORT = 9;
/** Long enough for an ICMP error from a namespace one veth away. */
const SILENCE_MS = 500;
const FAMILIES = [
  ['IPv4', 'ipv4'],
  ['IPv6', 'ipv6'],
] as const;
const PATH_RTT_MS = 80;

const namespaces = (): string[] =>
  execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((line) => line.split(' ')[0]!);

describe('udp services host', () => {
  let host: UdpServicesHost;
  beforeAll(async () => {
    host = await createUdpServicesHost({ dropped: [DROPPED_PORT] });
  });
  afterAll(() => host?.close());

  describe.each(FAMILIES)('over %s', (_, family) => {
    it.each(UDP_SERVERS)('%s answers a minimal request', async (service) => {
      const { bytes, answers, connected } = MINIMAL_REQUESTS[service];
      // The ACK ends tftpd's transfer, so it does not send the block again.
      const outcome = await exchange(host[family], host.ports.get(service)!, bytes, { connected, reply: service === 'tftp' ? () => tftpAck(1) : undefined });
      expect(outcome.kind).toBe('answer');
      expect(outcome.kind === 'answer' && answers(outcome.reply)).toBe(true);
    });

    it('the private SNMP agent receives a public GetRequest and does not answer it', async () => {
      const received = (): number => host.log('snmp-private').split('Received 43 byte packet').length;
      const before = received();
      const outcome = await exchange(host[family], host.ports.get('snmp-private')!, snmpGetSysDescr('public'), { waitMs: SILENCE_MS });
      expect(outcome.kind).toBe('silent');
      expect(received()).toBe(before + 1);
    });

    it('a dropped port neither answers nor sends a port unreachable', async () => {
      const outcome = await exchange(host[family], DROPPED_PORT, Buffer.from('probe'), { waitMs: SILENCE_MS });
      expect(outcome.kind).toBe('silent');
    });

    it('a closed port is refused', async () => {
      const outcome = await exchange(host[family], CLOSED_PORT, Buffer.from('probe'));
      expect(outcome.kind).toBe('refused');
    });
  });

  it('dnsmasq logs the example.com query it forwarded upstream and the answer', () => {
    const log = host.log('dns');
    expect(log).toContain('query[A] example.com');
    expect(log).toContain('forwarded example.com to 127.0.0.1#5300');
    expect(log).toContain('reply example.com is 93.184.215.14');
  });

  it('dnsmasq refuses a name it has no server for', async () => {
    const outcome = await exchange(host.ipv4, host.ports.get('dns')!, dnsQuery('example.org'));
    expect(outcome.kind === 'answer' && outcome.reply[3]! & 0x0f).toBe(5);
  });

  it('close() leaves no namespace and no process behind', async () => {
    const pids = execFileSync('ip', ['netns', 'pids', host.name], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(UDP_SERVERS.length);
    await host.close();
    expect(namespaces()).not.toContain(host.name);
    expect(pids.filter(isAlive)).toEqual([]);
  });
});

describe(`udp services host behind a ${PATH_RTT_MS} ms path`, () => {
  let host: UdpServicesHost;
  beforeAll(async () => {
    host = await createUdpServicesHost({ services: ['dns'], path: { rttMs: PATH_RTT_MS, loss: 0 } });
  });
  afterAll(() => host?.close());

  describe.each(FAMILIES)('over %s', (_, family) => {
    it('a DNS round trip takes the round trip', async () => {
      const outcome = await exchange(host[family], host.ports.get('dns')!, dnsQuery('example.com'));
      expect(outcome.kind === 'answer' && dnsAddress(outcome.reply)).toBe('93.184.215.14');
      expect(outcome.ms).toBeGreaterThanOrEqual(PATH_RTT_MS);
    });

    it('a closed port is refused, the port unreachable a round trip later', async () => {
      const outcome = await exchange(host[family], CLOSED_PORT, Buffer.from('probe'));
      expect(outcome.kind).toBe('refused');
      expect(outcome.ms).toBeGreaterThanOrEqual(PATH_RTT_MS);
    });
  });

  it('the path emulator carried the datagrams', async () => {
    const stats = await host.pathStats();
    expect(stats?.to.seen).toBeGreaterThanOrEqual(4);
    expect(stats?.from.seen).toBeGreaterThanOrEqual(4);
  });
});
