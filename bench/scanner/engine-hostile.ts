// The engines part's hostile and internet-path cases (issue #28): each host
// of scanner-cases.ts but the friendly one, deep-scanned by our SYN and
// connect engines, alternating. Both must come out exact, and the SYN
// engine no slower: the ratio of the medians (which absorb a noisy run)
// at most 1.0.
import { createNetnsHost } from '../../support/netns-host.js';
import { describeRunsWithCpu, medianCpuMs, progressLine, ratio } from './engine-figures.js';
import { runOurs } from './scan-runners.js';
import type { CaseFigures } from './scanner-case-run.js';
import type { ScannerCase } from './scanner-cases.js';
import { type Attempt, allExact, attempt, medianMs, verdict } from './scanner-figures.js';

const RATIO_GOAL = 1.0;
const ENGINES = ['syn', 'connect'] as const;

/** `runs` rounds of both engines on a fresh host of case `c`. */
export async function runEnginesOnCase(c: ScannerCase, runs: number, log: (line: string) => void): Promise<CaseFigures> {
  const host = await createNetnsHost(c.host);
  try {
    const truth = (port: number) => host.stateOf(port);
    log(`${c.key}: ${host.ipv4} (${host.name}), ${c.title}`);
    const runsOf = { syn: [] as Attempt[], connect: [] as Attempt[] };
    for (let round = 1; round <= runs; round++) {
      for (const engine of ENGINES) {
        runsOf[engine].push(await attempt(() => runOurs(host.ipv4, truth, true, 'auto', engine)));
        log(progressLine(round, engine, runsOf[engine].at(-1)!));
      }
    }
    const wallRatio = medianMs(runsOf.syn) / medianMs(runsOf.connect);
    const met = wallRatio <= RATIO_GOAL && allExact(runsOf.syn) && allExact(runsOf.connect);
    const lines = [
      `syn engine: ${describeRunsWithCpu(runsOf.syn)}`,
      `connect engine: ${describeRunsWithCpu(runsOf.connect)}`,
      `ratio syn/connect wall ${wallRatio.toFixed(2)} (goal ≤ ${RATIO_GOAL.toFixed(1)} with both engines exact): ${verdict(met)}; CPU ${ratio(medianCpuMs(runsOf.syn), medianCpuMs(runsOf.connect))}`,
    ];
    for (const line of lines) log(`  ${line}`);
    return { title: c.title, lines };
  } finally {
    await host.close();
  }
}
