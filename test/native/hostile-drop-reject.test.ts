// Issue #13: firewalls that hide or answer for ports. A host that drops
// every SYN but its listeners' (filtered), REJECT with tcp-reset (closed),
// and REJECT with ICMP port unreachable (filtered: connect() reads that as
// ECONNREFUSED, an RST's errno, so the scanner has to tell them apart),
// once with every ICMP error sent and once with Linux's default ICMP rate
// limit (most unreachables suppressed). Every port must get its true state
// on IPv4 and IPv6, every time (REPETITIONS runs per family), and agree with
// nmap -sT wherever nmap can be exact: not on the ICMP-rejected range, which
// a connect scanner calls closed (or, rate-limited, a mix). Needs root and
// network namespaces (CI).
import { describe, expect, it } from 'vitest';

import type { PortRange } from '../../support/netns-firewall.js';
import type { NetnsHostOptions } from '../../support/netns-host.js';
import { mismatches } from '../../support/scan-compare.js';
import { EXACT, FAMILIES, type Family, logScan, nmapStatesOnce, portList, portsIn, REPETITIONS, scanHost, spacer, verdictOf } from '../helpers/hostile-scan.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const scanner = createTestScanner();

const REJECT_RESET: PortRange = { from: 30000, to: 30499 };
const REJECT_ICMP: PortRange = { from: 31000, to: 31499 };

interface FirewallCase {
  name: string;
  options: NetnsHostOptions;
  ports: readonly number[];
  /** Ports where nmap -sT cannot be exact; left out of the comparison. */
  nmapBlind?: PortRange;
  /**
   * Rest before each repetition after the first, from the end of the
   * previous scan, so the host's ICMP token bucket for us is full again.
   */
  restMs?: Record<Family, number>;
  budgetMs: number;
}

const CASES: FirewallCase[] = [
  {
    // 1,997 dropped ports, 5 listeners.
    name: 'drops every SYN but its listeners',
    options: { dropAllButListeners: true, filtered: null },
    ports: portList([1, 2000], 8080, 40022),
    budgetMs: 30_000,
  },
  {
    // 2,000 closed, 500 reset, 500 ICMP-rejected ports, 5 listeners.
    name: 'rejects with tcp-reset and with every ICMP port unreachable sent',
    options: { rejectReset: REJECT_RESET, rejectIcmp: REJECT_ICMP, icmpRatelimitMs: 0, filtered: null },
    ports: portList([1, 2000], 8080, [REJECT_RESET.from, REJECT_RESET.to], [REJECT_ICMP.from, REJECT_ICMP.to], 40022),
    nmapBlind: REJECT_ICMP,
    budgetMs: 15_000,
  },
  {
    // The same behind Linux's default ICMP rate limit: per peer, a bucket of
    // 6 tokens refilled every 1000 ms (IPv4), or every 250 ms for an IPv6
    // peer reached through a /64 route. A scan meets the burst of 6 answers
    // then mostly silence; the next repetition waits for a full bucket.
    name: 'rejects with tcp-reset and with rate-limited ICMP port unreachable',
    options: { rejectReset: REJECT_RESET, rejectIcmp: REJECT_ICMP, icmpRatelimitMs: 1000, filtered: null },
    ports: portList([1, 2000], 8080, [REJECT_RESET.from, REJECT_RESET.to], [REJECT_ICMP.from, REJECT_ICMP.to], 40022),
    nmapBlind: REJECT_ICMP,
    restMs: { ipv4: 6 * 1000, ipv6: 6 * 250 },
    budgetMs: 15_000,
  },
];

describe.each(CASES)('host that $name', ({ name, options, ports, nmapBlind, restMs, budgetMs }) => {
  const host = useNetnsHost(options);
  const blind = new Set(portsIn(ports, nmapBlind));
  const nmapPorts = ports.filter((port) => !blind.has(port));

  describe.each(FAMILIES)('over %s', (family) => {
    const spacing = spacer(restMs?.[family] ?? 0);

    it.each(REPETITIONS)(`gives all ${ports.length} ports their true state, agreeing with nmap -sT (repetition %i)`, async (repetition) => {
      await spacing.rest();
      const scan = await scanHost(scanner, host(), family, { ports, budgetMs }, `${name} ${family} #${repetition}`);
      spacing.ended();
      const truth = (port: number) => host().stateOf(port);
      logScan(scan, truth);
      // Soft: the nmap checks below run, and tell on the fixture, even when the scan is wrong.
      expect.soft(verdictOf(scan, truth)).toEqual(EXACT);
      expect.soft(scan.summary.portsScanned).toBe(ports.length);
      expect.soft(scan.summary.open.map((p) => p.port)).toEqual(host().listeners.map((l) => l.port));

      // nmap checks the fixture as much as the scanner: both must agree with it.
      const nmap = await nmapStatesOnce(host(), family, nmapPorts);
      expect(nmap.size).toBe(nmapPorts.length);
      expect(mismatches(nmap, truth).slice(0, 20)).toEqual([]);
      const ours = new Map(nmapPorts.map((port) => [port, scan.decided.get(port) ?? 'closed'] as const));
      expect(mismatches(ours, (port) => nmap.get(port) ?? 'closed').slice(0, 20)).toEqual([]);
    });
  });
});

describe('host that answers none of the ports scanned', () => {
  // Every SYN to 1000-1999 is dropped and no listener is among them, so no
  // port ever answers and there is no canary to vouch for a silence: the
  // scanner falls back to three silent passes per port.
  const host = useNetnsHost({ dropAllButListeners: true, filtered: null });
  const ports = portList([1000, 1999]);
  const initialMs = 200; // the connect timeout while no RTT is known, i.e. throughout

  describe.each(FAMILIES)('over %s', (family) => {
    it.each(REPETITIONS)('calls every port filtered after three silent passes (repetition %i)', async (repetition) => {
      const request = { ports, budgetMs: 30_000, timeouts: { initialMs } };
      const scan = await scanHost(scanner, host(), family, request, `silent host ${family} #${repetition}`);
      const truth = (port: number) => host().stateOf(port);
      logScan(scan, truth);
      expect(verdictOf(scan, truth)).toEqual(EXACT);
      expect(scan.summary.filtered).toHaveLength(ports.length);
      expect(scan.summary.durationMs).toBeGreaterThanOrEqual(3 * initialMs);
    });
  });
});
