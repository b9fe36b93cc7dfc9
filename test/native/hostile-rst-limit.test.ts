// Issue #13: hosts that send at most so many RSTs a second, as FreeBSD and
// macOS do (200/s). A closed port whose RST was dropped looks filtered; the
// scanner must still give every port its true state, on IPv4 and IPv6,
// every time (REPETITIONS runs per family, each a test of its own). A scan
// whose budget cannot cover the limiter must end `incomplete` and report
// only states it verified. nmap cannot be exact on such hosts, so the
// fixture's truth is the reference. Needs root and network namespaces (CI).
import { describe, expect, it } from 'vitest';

import { limiterCounts } from '../../support/limiter-rate.js';
import type { Limit } from '../../support/netns-firewall.js';
import {
  EXACT,
  FAMILIES,
  limiterFloorMs,
  logScan,
  portList,
  REPETITIONS,
  refillMs,
  scanExactly,
  scanHost,
  spacer,
  verdictOf,
} from '../helpers/hostile-scan.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const scanner = createTestScanner();

/** A range the host drops outright: filtered, with no RST to wait for. */
const DROPPED = { from: 20000, to: 20049 };

interface RstCase {
  name: string;
  rstLimit: Limit;
  ports: readonly number[];
  /** Several times what the limiter's rate needs for these ports. */
  budgetMs: number;
}

// Every list holds the listeners 22, 25, 80, 8080 and 40022, the dropped
// range and closed ports, each of which needs one RST through the limiter:
// burst + rate x t of them at most.
const CASES: RstCase[] = [
  {
    // 997 closed ports: >= 1 s.
    name: '1,000/s, burst 20',
    rstLimit: { rate: 1000, burst: 20 },
    ports: portList([1, 1000], 8080, [DROPPED.from, DROPPED.to], 40022),
    budgetMs: 20_000,
  },
  {
    // 2,997 closed ports: >= 0.6 s.
    name: '5,000/s, burst 50',
    rstLimit: { rate: 5000, burst: 50 },
    ports: portList([1, 3000], 8080, [DROPPED.from, DROPPED.to], 40022),
    budgetMs: 15_000,
  },
  {
    // 3,997 closed ports: >= 0.4 s.
    name: '10,000/s, burst 100',
    rstLimit: { rate: 10000, burst: 100 },
    ports: portList([1, 4000], 8080, [DROPPED.from, DROPPED.to], 40022),
    budgetMs: 15_000,
  },
];

describe.each(CASES)('RST limit $name', ({ name, rstLimit, ports, budgetMs }) => {
  const host = useNetnsHost({ rstLimit, filtered: DROPPED });

  describe.each(FAMILIES)('over %s', (family) => {
    // Each repetition starts with the bucket full, as the first one does.
    const spacing = spacer(refillMs(rstLimit));

    it.each(REPETITIONS)(`gives all ${ports.length} ports their true state (repetition %i)`, async (repetition) => {
      const label = `RST ${name} ${family} #${repetition}`;
      const scan = await scanExactly(scanner, host(), family, { ports, budgetMs }, label, spacing);
      // Every closed port took an RST through the limiter, so an exact scan
      // cannot beat it (10% slack for per-jiffy refills); if one did, the
      // limiter would not bind and the test would prove nothing.
      expect(scan.summary.durationMs).toBeGreaterThanOrEqual(0.9 * limiterFloorMs(host(), ports, (state) => state === 'closed', rstLimit));
    });
  });
});

describe('RST limit 200/s with a budget too short for it', () => {
  const rstLimit: Limit = { rate: 200, burst: 20 };
  const host = useNetnsHost({ rstLimit, filtered: DROPPED });
  // 2,997 closed ports need >= 14.9 s of RSTs; the budget is 3 s.
  const ports = portList([1, 3000], 8080, [DROPPED.from, DROPPED.to], 40022);
  const budgetMs = 3000;

  describe.each(FAMILIES)('over %s', (family) => {
    const spacing = spacer(refillMs(rstLimit));

    it.each(REPETITIONS)('ends incomplete, every port it decided verified (repetition %i)', async (repetition) => {
      await spacing.rest();
      const before = await limiterCounts(host(), 'RSTLIMIT', family);
      // One port per chunk: each complete chunk names one port's state, closed included.
      const scan = await scanHost(scanner, host(), family, { ports, budgetMs, chunkSize: 1 }, `RST 200/s, ${budgetMs} ms budget, ${family} #${repetition}`);
      spacing.ended();
      const after = await limiterCounts(host(), 'RSTLIMIT', family);
      const truth = (port: number) => host().stateOf(port);
      logScan(scan, truth);

      expect(verdictOf(scan, truth)).toEqual({ ...EXACT, status: 'incomplete', undecided: ports.length - scan.decidedCount });
      expect(scan.decidedCount).toBeGreaterThan(0);
      expect(scan.decidedCount).toBeLessThan(ports.length);
      expect(scan.summary.portsScanned).toBe(scan.decidedCount);
      // A closed port is known only from an RST the host let out: more
      // closed ports than RSTs would be guesses, however true.
      expect(scan.summary.closed).toBeLessThanOrEqual(after.passed - before.passed);
    });
  });
});
