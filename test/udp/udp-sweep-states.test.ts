// The udp sweep against Debian's real UDP servers in a network namespace,
// over IPv4 and IPv6: every port's state exact in every repetition (open
// where a server answers, filtered where iptables drops, closed elsewhere),
// with the target's ICMP rate limit at the kernel's default (IPv4: a burst
// of 6 port unreachables, then one a second), a stricter one, and behind an
// internet-like path (80 ms, 1 % loss), sending from one address and from
// 4 (the probes shared out, each address with its own ICMP budget at the
// target); and what each server answered in the facts. Needs root.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { snmpProbe } from '../../src/udp/probes/snmp-probe.js';
import { UDP_PROBES } from '../../src/udp/udp-probes.js';
import { type UdpPortOutcome, type UdpPortState, udpSweep } from '../../src/udp/udp-sweep.js';
import { createUdpServicesHost, type UdpServicesHost } from '../../support/udp-services-host.js';

const DROPPED = 5060;
const FAMILIES = ['ipv4', 'ipv6'] as const;

/** The state each probed port of `host` must get. */
function truthOf(host: UdpServicesHost): Map<number, UdpPortState> {
  const open = new Set(host.ports.values());
  return new Map(UDP_PROBES.map(({ port }) => [port, open.has(port) ? 'open' : port === DROPPED ? 'filtered' : 'closed']));
}

function wrongStates(ports: readonly UdpPortOutcome[], truth: Map<number, UdpPortState>): string[] {
  return ports.filter((port) => port.state !== truth.get(port.port)).map((port) => `${port.port}: ${port.state}, is ${truth.get(port.port)}`);
}

const byService = (ports: readonly UdpPortOutcome[], service: string): UdpPortOutcome => ports.find((port) => port.service === service)!;
const details = (port: UdpPortOutcome): Record<string, unknown> => Object.assign({}, ...port.readings.map((reading) => reading.details));

describe('udp sweep of real servers, the kernel default ICMP rate limit', () => {
  let host: UdpServicesHost;
  beforeAll(async () => {
    host = await createUdpServicesHost({ dropped: [DROPPED] });
  });
  afterAll(() => host?.close());

  describe.each(FAMILIES)('over %s', (family) => {
    it.each([1, 2])('gets every state exact (repetition %i)', async () => {
      const result = await udpSweep(host[family], UDP_PROBES);
      expect(wrongStates(result.ports, truthOf(host))).toEqual([]);
      expect(result.settledBy).toBe('judge');
    });

    it('reports what each server answered, the bytes and the amplification', async () => {
      const { ports } = await udpSweep(host[family], UDP_PROBES);
      const dns = byService(ports, 'dns');
      expect(details(dns)).toMatchObject({ recursive: true, recursion_available: true, rcode: 'NOERROR' });
      expect(details(byService(ports, 'ntp'))).toMatchObject({ stratum: 8 });
      expect(details(byService(ports, 'snmp')).sys_descr).toBe('selfscan udp fixture');
      expect(String(details(byService(ports, 'memcached')).version)).toMatch(/^\d+\.\d+\.\d+/);
      const chargen = byService(ports, 'chargen');
      expect(chargen.bytesReceived).toBeGreaterThan(chargen.bytesSent * 10);
      expect(chargen.amplification).toBe(chargen.bytesReceived / chargen.bytesSent);
      expect(details(byService(ports, 'tftp'))).toMatchObject({ opcode: 'ERROR' });
      expect(details(byService(ports, 'portmap')).programs).toBeGreaterThan(0);
      expect(Number(details(byService(ports, 'coap')).resources)).toBeGreaterThan(0);
      for (const port of ports.filter((p) => p.state !== 'open')) {
        expect(port.bytesReceived).toBe(0);
        expect(port.amplification).toBeNull();
      }
    });
  });

  it('sent what the servers logged: the DNS questions, and a memcached stats request', async () => {
    await udpSweep(host.ipv4, UDP_PROBES);
    expect(host.log('dns')).toMatch(/query\[A\] example\.com from /);
    expect(host.log('dns')).toMatch(/query\[TXT\] version\.bind from /);
    expect(host.log('memcached')).toMatch(/stats/);
  });

  it('calls an SNMP agent that ignores community public filtered', async () => {
    const privatePort = host.ports.get('snmp-private')!;
    const { ports } = await udpSweep(host.ipv4, [{ ...snmpProbe, port: privatePort }]);
    expect(ports[0]).toMatchObject({ port: privatePort, state: 'filtered', bytesReceived: 0 });
    expect(host.log('snmp-private')).toMatch(/public/);
  });
});

describe('udp sweep of real servers, a stricter ICMP rate limit (one unreachable every 2 s)', () => {
  let host: UdpServicesHost;
  beforeAll(async () => {
    host = await createUdpServicesHost({ dropped: [DROPPED], icmpRateLimitMs: 2_000 });
  });
  afterAll(() => host?.close());

  it.each(FAMILIES)('gets every state exact over %s', async (family) => {
    const result = await udpSweep(host[family], UDP_PROBES);
    expect(wrongStates(result.ports, truthOf(host))).toEqual([]);
  });
});

/**
 * Sweeps `host` over `family` from all its extra scanner addresses (both
 * families', as scanner.udpSourceAddresses would list them) and checks the
 * states and that each of the family's addresses sent its share of the
 * probes and a canary (on a `lossy` path: something; a datagram may be
 * lost on the way), and the other family's none.
 */
async function expectPooledSweepExact(host: UdpServicesHost, family: (typeof FAMILIES)[number], lossy = false): Promise<void> {
  const other = family === 'ipv4' ? 'ipv6' : 'ipv4';
  const all = [...host.scannerAddresses.ipv4, ...host.scannerAddresses.ipv6];
  const before = await host.datagramsFrom(all);
  const result = await udpSweep(host[family], UDP_PROBES, { sourceAddresses: all });
  expect(wrongStates(result.ports, truthOf(host))).toEqual([]);
  expect(result.settledBy).toBe('judge');
  const after = await host.datagramsFrom(all);
  const sent = (source: string): number => after.get(source)! - before.get(source)!;
  const least = lossy ? 1 : UDP_PROBES.length / host.scannerAddresses[family].length + 1;
  for (const source of host.scannerAddresses[family]) expect(sent(source), source).toBeGreaterThanOrEqual(least);
  for (const source of host.scannerAddresses[other]) expect(sent(source), source).toBe(0);
}

describe('udp sweep of real servers from 4 source addresses, the kernel default ICMP rate limit', () => {
  let host: UdpServicesHost;
  beforeAll(async () => {
    host = await createUdpServicesHost({ dropped: [DROPPED], scannerAddresses: 4 });
  });
  afterAll(() => host?.close());

  describe.each(FAMILIES)('over %s', (family) => {
    // The second runs on the ICMP budgets the first spent.
    it.each([1, 2])('shares the probes out among the addresses, every state exact (repetition %i)', async () => {
      await expectPooledSweepExact(host, family);
    });
  });
});

describe('udp sweep of real servers behind an internet-like path (80 ms, 1 % loss)', () => {
  let host: UdpServicesHost;
  beforeAll(async () => {
    host = await createUdpServicesHost({ dropped: [DROPPED], path: { rttMs: 80, loss: 0.01 }, scannerAddresses: 4 });
  });
  afterAll(() => host?.close());

  describe.each(FAMILIES)('over %s', (family) => {
    it.each([1, 2])('gets every state exact (repetition %i)', async () => {
      const result = await udpSweep(host[family], UDP_PROBES);
      expect(wrongStates(result.ports, truthOf(host))).toEqual([]);
      expect(result.rttMs).toBeGreaterThanOrEqual(80);
    });

    it('gets every state exact from 4 source addresses', async () => {
      await expectPooledSweepExact(host, family, true);
    });
  });
});
