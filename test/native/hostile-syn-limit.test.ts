// Issue #13: hosts that drop SYNs above a rate, per source address
// (hashlimit) or for everyone together (-m limit). A dropped SYN looks like a
// filtered port; the scanner must still give every port its true state, on
// IPv4 and IPv6, every time. Each case runs REPETITIONS times per family,
// each run a test of its own. nmap cannot be exact here, so the fixture's
// truth is the only reference. Needs root and network namespaces (CI).
import { describe, expect, it } from 'vitest';

import { limiterCounts } from '../../support/limiter-rate.js';
import type { HostileOptions } from '../../support/netns-firewall.js';
import { ALL_PORTS } from '../../support/scan-compare.js';
import { FAMILIES, portList, REPETITIONS, refillMs, scanExactly, spacer } from '../helpers/hostile-scan.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const scanner = createTestScanner();

/** A range the host drops outright: filtered whatever the limiter does. */
const DROPPED = { from: 20000, to: 20049 };

interface SynCase {
  name: string;
  synLimit: NonNullable<HostileOptions['synLimit']>;
  ports: readonly number[];
  /** Several times what the limiter's rate needs for these ports. */
  budgetMs: number;
}

// Every list holds the listeners 22, 25, 80, 8080 and 40022, closed ports
// and the dropped range. Sized so a scan at the limiter's rate takes
// seconds: the limiter lets through at most burst + rate x t SYNs.
const CASES: SynCase[] = [
  {
    // 1,052 ports: >= 1 s at the nominal rate (the kernel's bucket passes
    // less to a bursty sender).
    name: 'per source, 1,000/s, burst 5',
    synLimit: { rate: 1000, burst: 5, scope: 'per-source' },
    ports: portList([1, 1000], 8080, [DROPPED.from, DROPPED.to], 40022),
    budgetMs: 20_000,
  },
  {
    // 4,052 ports: >= 0.8 s.
    name: 'per source, 5,000/s, burst 100',
    synLimit: { rate: 5000, burst: 100, scope: 'per-source' },
    ports: portList([1, 4000], 8080, [DROPPED.from, DROPPED.to], 40022),
    budgetMs: 15_000,
  },
  {
    // 4,052 ports: >= 0.2 s; a fast limiter still drops a fast first burst.
    name: 'per source, 20,000/s, burst 200',
    synLimit: { rate: 20000, burst: 200, scope: 'per-source' },
    ports: portList([1, 4000], 8080, [DROPPED.from, DROPPED.to], 40022),
    budgetMs: 15_000,
  },
  {
    // A burst of 2 s worth of SYNs, which only bites once spent: the deep
    // scan of issue #13, all 65,535 ports, >= 4.6 s.
    name: 'per source, 10,000/s, burst 20,000, all ports',
    synLimit: { rate: 10000, burst: 20000, scope: 'per-source' },
    ports: ALL_PORTS,
    budgetMs: 40_000,
  },
  {
    // xt_limit's highest rate, shared by every source; 4,052 ports: >= 0.4 s.
    name: 'global, 10,000/s, burst 20',
    synLimit: { rate: 10000, burst: 20, scope: 'global' },
    ports: portList([1, 4000], 8080, [DROPPED.from, DROPPED.to], 40022),
    budgetMs: 15_000,
  },
];

describe.each(CASES)('SYN limit $name', ({ name, synLimit, ports, budgetMs }) => {
  const host = useNetnsHost({ synLimit, filtered: DROPPED });

  describe.each(FAMILIES)('over %s', (family) => {
    // Each repetition starts with the bucket full, as the first one does.
    const spacing = spacer(refillMs(synLimit));

    it.each(REPETITIONS)(`gives all ${ports.length} ports their true state (repetition %i)`, async (repetition) => {
      const label = `SYN ${name} ${family} #${repetition}`;
      const before = await limiterCounts(host(), 'SYNLIMIT', family);
      const contradictedBefore = scanner.stats().silencesContradicted;
      await scanExactly(scanner, host(), family, { ports, budgetMs }, label, spacing);
      const after = await limiterCounts(host(), 'SYNLIMIT', family);
      const contradicted = scanner.stats().silencesContradicted - contradictedBefore;
      // The limiter bound: it dropped SYNs of this scan (else the test would
      // prove nothing), and every answer took a SYN through it. Read from
      // its counters, not from a floor on the time: a hashlimit bucket of
      // 20,000 has let a deep scan through in 3.6 s, where 10,000/s allows
      // 4.5 s, once in a dozen scans.
      const answering = ports.filter((port) => host().stateOf(port) !== 'filtered').length;
      console.log(
        `[hostile] ${label}: the limiter let ${after.passed - before.passed} SYNs through and dropped ${after.dropped - before.dropped}; ${contradicted} silences the canaries vouched for were contradicted`,
      );
      expect(after.dropped - before.dropped).toBeGreaterThan(0);
      expect(after.passed - before.passed).toBeGreaterThanOrEqual(answering);
    });
  });
});
