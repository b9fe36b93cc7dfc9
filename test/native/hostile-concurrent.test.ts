// Issue #13: hostile and friendly targets scanned at the same time. A host
// that rate-limits SYNs, one that rate-limits RSTs and a default fixture
// host get the same port list at once: each must come out exact, and the
// friendly one must not be held to the hostile ones' pace. It has to end
// first, and sooner than the fewest seconds either limiter needs for the
// list. REPETITIONS runs per family, each a test of its own. Needs root and
// network namespaces (CI).
import { describe, expect, it } from 'vitest';

import type { Limit } from '../../support/netns-firewall.js';
import type { NetnsHost } from '../../support/netns-host.js';
import { EXACT, FAMILIES, type HostileScan, limiterFloorMs, logScan, portList, REPETITIONS, scanHost, verdictOf } from '../helpers/hostile-scan.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const scanner = createTestScanner();

const SYN_LIMIT: Limit = { rate: 1000, burst: 5 };
const RST_LIMIT: Limit = { rate: 1000, burst: 20 };

// All three hosts drop 20000-20999 (the fixture's default): 50 of these
// ports are filtered everywhere, 2,002 answer, 1,997 of them closed.
const PORTS = portList([1, 2000], 8080, [20000, 20049], 40022);
const BUDGET_MS = 20_000;

describe('a SYN-limited, an RST-limited and a friendly host scanned at once', () => {
  const synHost = useNetnsHost({ synLimit: { ...SYN_LIMIT, scope: 'per-source' } });
  const rstHost = useNetnsHost({ rstLimit: RST_LIMIT });
  const friendlyHost = useNetnsHost();

  describe.each(FAMILIES)('over %s', (family) => {
    it.each(REPETITIONS)(`each exact on ${PORTS.length} ports, the friendly one first (repetition %i)`, async (repetition) => {
      const started = performance.now();
      const scan = async (host: NetnsHost, label: string): Promise<{ scan: HostileScan; endedMs: number }> => {
        const result = await scanHost(scanner, host, family, { ports: PORTS, budgetMs: BUDGET_MS }, `${label} ${family} #${repetition} (concurrent)`);
        return { scan: result, endedMs: performance.now() - started };
      };
      const [syn, rst, friendly] = await Promise.all([
        scan(synHost(), 'SYN 1,000/s burst 5'),
        scan(rstHost(), 'RST 1,000/s burst 20'),
        scan(friendlyHost(), 'friendly'),
      ]);
      for (const [{ scan: s }, host] of [
        [syn, synHost()],
        [rst, rstHost()],
        [friendly, friendlyHost()],
      ] as const) {
        logScan(s, (port) => host.stateOf(port));
      }

      // Soft: every host's verdict and the timing are reported, not just the first failure.
      const verdicts = {
        syn: verdictOf(syn.scan, (port) => synHost().stateOf(port)),
        rst: verdictOf(rst.scan, (port) => rstHost().stateOf(port)),
        friendly: verdictOf(friendly.scan, (port) => friendlyHost().stateOf(port)),
      };
      expect.soft(verdicts.syn, 'SYN-limited host').toEqual(EXACT);
      expect.soft(verdicts.rst, 'RST-limited host').toEqual(EXACT);
      expect.soft(verdicts.friendly, 'friendly host').toEqual(EXACT);

      // Every answer from the SYN-limited host needs a SYN through its
      // limiter; every closed port of the RST-limited host an RST through its.
      const synFloor = limiterFloorMs(synHost(), PORTS, (state) => state !== 'filtered', SYN_LIMIT);
      const rstFloor = limiterFloorMs(rstHost(), PORTS, (state) => state === 'closed', RST_LIMIT);
      console.log(
        `[hostile] concurrent ${family} #${repetition}: ended friendly ${friendly.endedMs.toFixed(0)} ms, ` +
          `SYN-limited ${syn.endedMs.toFixed(0)} ms (floor ${synFloor.toFixed(0)}), RST-limited ${rst.endedMs.toFixed(0)} ms (floor ${rstFloor.toFixed(0)})`,
      );
      expect.soft(friendly.endedMs, 'friendly scan ends before the SYN-limited one').toBeLessThan(syn.endedMs);
      expect.soft(friendly.endedMs, 'friendly scan ends before the RST-limited one').toBeLessThan(rst.endedMs);
      expect.soft(friendly.scan.summary.durationMs, "friendly scan beats both limiters' floors").toBeLessThan(Math.min(synFloor, rstFloor));
      // An exact hostile scan cannot beat its limiter (10% slack for the
      // kernel's per-jiffy buckets); if one did, the fixture's limiter would
      // not bind and "faster than the floor" would prove nothing.
      const exact = (v: typeof verdicts.syn): boolean => v.status === 'complete' && v.wrongCount === 0;
      if (exact(verdicts.syn)) expect.soft(syn.scan.summary.durationMs, 'SYN limiter binds').toBeGreaterThanOrEqual(0.9 * synFloor);
      if (exact(verdicts.rst)) expect.soft(rst.scan.summary.durationMs, 'RST limiter binds').toBeGreaterThanOrEqual(0.9 * rstFloor);
    });
  });
});
