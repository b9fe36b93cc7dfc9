// The real addon against a host in a network namespace: every one of the
// 65,535 ports must come out as it truly is, on IPv4 and IPv6, and agree
// with nmap port by port.
import { execFileSync } from 'node:child_process';

import { describe, expect, it } from 'vitest';

import type { ScanChunk } from '../../src/native/scanner.js';
import { nmapScan } from '../../support/nmap.js';
import { ALL_PORTS, mismatches, statesOf } from '../../support/scan-compare.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const scanner = createTestScanner();
const host = useNetnsHost();

describe.each(['ipv4', 'ipv6'] as const)('deep scan over %s', (family) => {
  it('gives every port its true state, agreeing with nmap -sT -p-', async () => {
    const ip = host()[family];
    const chunks: ScanChunk[] = [];
    const summary = await scanner.scan({ ip, ports: [...ALL_PORTS] }, (chunk) => chunks.push(chunk)).done;

    expect(summary.status).toBe('complete');
    expect(summary.portsScanned).toBe(65535);
    const ours = statesOf(summary, ALL_PORTS);
    expect(mismatches(ours, (port) => host().stateOf(port))).toEqual([]);
    expect(summary.filtered).toHaveLength(1000);
    expect(summary.open.map((p) => p.port)).toEqual(host().listeners.map((l) => l.port));

    const nmap = await nmapScan(ip);
    expect(nmap.states.size).toBe(65535);
    expect(mismatches(ours, (port) => nmap.states.get(port) ?? 'closed')).toEqual([]);

    // 64 chunks of 1024 ports (the last one 1023), each delivered once.
    expect(chunks.map((c) => c.index).sort((a, b) => a - b)).toEqual([...Array(64).keys()]);
    expect(new Set(chunks.map((c) => c.total))).toEqual(new Set([64]));
    const counted = chunks.reduce((sum, c) => sum + c.open.length + c.filtered.length + c.closed, 0);
    expect(counted).toBe(65535);
    expect(chunks.every((c) => c.complete)).toBe(true);
  });
});

it('reads banners and names services of the fixture listeners', async () => {
  for (const ip of [host().ipv4, host().ipv6]) {
    const ports = host().listeners.map((l) => l.port);
    const summary = await scanner.scan({ ip, ports }).done;
    const byPort = new Map(summary.open.map((p) => [p.port, p]));
    for (const listener of host().listeners) {
      const port = byPort.get(listener.port);
      expect(port?.state).toBe('open');
      expect(port?.banner?.split('\n')[0] ?? null).toBe(listener.banner);
      expect(port?.banner?.length ?? 0).toBeLessThanOrEqual(512);
    }
    expect(byPort.get(22)?.service).toBe('ssh');
    expect(byPort.get(25)?.service).toBe('smtp');
    expect(byPort.get(80)?.service).toBe('http');
    expect(byPort.get(8080)?.service).toBe('http-alt');
    expect(byPort.get(40022)?.service).toBeNull();
    // The HTTP banner is the answer to our probe: the whole response, printable.
    expect(byPort.get(80)?.banner).toContain('Server: selfscan-fixture');
    expect(byPort.get(80)?.banner).not.toMatch(/[\r\x00-\x09\x0b-\x1f]/);
  }
});

it('comes out exact for four concurrent deep scans', async () => {
  const targets = [host().ipv4, host().ipv6, host().ipv4, host().ipv6];
  const summaries = await Promise.all(targets.map((ip) => scanner.scan({ ip, ports: [...ALL_PORTS] }).done));
  for (const summary of summaries) {
    expect(summary.status).toBe('complete');
    expect(mismatches(statesOf(summary, ALL_PORTS), (port) => host().stateOf(port))).toEqual([]);
  }
});

it('serves concurrent scans fairly: their chunks interleave', async () => {
  const arrivals: string[] = [];
  const scan = (ip: string, tag: string) => scanner.scan({ ip, ports: [...ALL_PORTS], banners: false }, () => arrivals.push(tag)).done;
  await Promise.all([scan(host().ipv4, 'a'), scan(host().ipv6, 'b')]);
  // Round-robin: neither scan waits for the other to finish.
  expect(arrivals.indexOf('b')).toBeLessThan(arrivals.lastIndexOf('a') - 16);
  expect(arrivals.indexOf('a')).toBeLessThan(arrivals.lastIndexOf('b') - 16);
});

it('reports an ICMP-prohibited port as filtered', async () => {
  const ports = [31000, 31001, 31002];
  const rules = [
    ['iptables', 'icmp-host-prohibited'],
    ['ip6tables', 'icmp6-adm-prohibited'],
  ];
  const rule = (action: '-I' | '-D', tool: string, reply: string): void => {
    const args = [tool, '-w', action, 'INPUT', '-p', 'tcp', '--dport', '31000:31002', '-j', 'REJECT', '--reject-with', reply];
    execFileSync('ip', ['netns', 'exec', host().name, ...args]);
  };
  for (const [tool, reply] of rules) rule('-I', tool!, reply!);
  try {
    for (const ip of [host().ipv4, host().ipv6]) {
      // A minimum timeout far above the run time: only ICMP can make these filtered quickly.
      const summary = await scanner.scan({ ip, ports, timeouts: { minMs: 20_000, initialMs: 20_000, maxMs: 20_000 } }).done;
      expect(summary.filtered.map((p) => p.port)).toEqual(ports);
      expect(summary.durationMs).toBeLessThan(20_000);
    }
  } finally {
    for (const [tool, reply] of rules) rule('-D', tool!, reply!);
  }
});

it('adapts the connect timeout to the measured RTT', async () => {
  // Without adaptation every filtered port would wait the initial 5 s twice.
  const ports = [...Array.from({ length: 200 }, (_, i) => 10000 + i), ...Array.from({ length: 100 }, (_, i) => 20000 + i)];
  const summary = await scanner.scan({
    ip: host().ipv4,
    ports,
    timeouts: { initialMs: 5000, minMs: 20, maxMs: 5000 },
  }).done;
  expect(mismatches(statesOf(summary, ports), (port) => host().stateOf(port))).toEqual([]);
  expect(summary.filtered).toHaveLength(100);
  expect(summary.durationMs).toBeLessThan(5000);
});
