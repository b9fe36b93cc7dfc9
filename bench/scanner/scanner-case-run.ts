// Runs one case of the scanner benchmark: creates its netns host, measures
// its limiter when the goal needs a floor, alternates our deep scan with the
// anchors for the given number of rounds, and returns the figures as lines.
import { setTimeout as sleep } from 'node:timers/promises';

import type { PollerName } from '../../src/native/poller-choices.js';
import { measureLimiter } from '../../support/limiter-rate.js';
import { createNetnsHost } from '../../support/netns-host.js';
import { DEFAULT_TIMEOUT_MS, DEFAULT_WINDOW } from './fixed-batch-sweep.js';
import { runNmap, runOurs, runSweep } from './scan-runners.js';
import type { ScannerCase } from './scanner-cases.js';
import { type Attempt, allExact, attempt, count, describeRuns, medianMs, ratioTo, seconds, verdict } from './scanner-figures.js';

export interface CaseSettings {
  runs: number;
  quick: boolean;
  /** Readiness backends our scan runs on, each every round; the goals judge the first. */
  pollers: readonly PollerName[];
  /** Progress as it happens (the case's figures come back at the end). */
  log: (line: string) => void;
}

/** A figure and its sub-lines (markdown list items without the dash). */
export interface CaseFigures {
  title: string;
  lines: string[];
}

const NMAP_LABEL = 'nmap -sT -p- -n -Pn -T4';
/** How much slower than the first poller another may be and still serve as the fallback (issue #31). */
const POLLER_RATIO_GOAL = 1.3;
const SWEEP_LABEL = `fixed-batch sweep (${count(DEFAULT_WINDOW)} connects in flight, ${DEFAULT_TIMEOUT_MS / 1000} s timeout, no retries)`;

export async function runCase(c: ScannerCase, { runs, quick, pollers, log }: CaseSettings): Promise<CaseFigures> {
  const host = await createNetnsHost(c.host);
  try {
    const truth = (port: number) => host.stateOf(port);
    const lines: string[] = [];
    log(`${c.key}: ${host.ipv4} (${host.name}), ${c.title}`);

    let floorMs = Number.NaN;
    if (c.goal.kind === 'floor') {
      const m = await measureLimiter(host, c.goal.chain);
      const roundMs = c.goal.roundMs ?? 0;
      floorMs = (c.goal.packets / m.passedPerSecond) * 1000 + roundMs;
      const round = roundMs > 0 ? ` + ${seconds(roundMs)} (${c.goal.roundWhy})` : '';
      lines.push(
        `limiter ${c.goal.chain}: true rate ${count(m.passedPerSecond)}/s (let through while it dropped another ${count(m.droppedPerSecond)}/s; best of two ${seconds(m.windowMs)} windows of flooding); ` +
          `floor ${count(c.goal.packets)} packets ÷ ${count(m.passedPerSecond)}/s${round} = ${seconds(floorMs)}: ${c.goal.packetsWhy}`,
      );
      log(`  ${lines.at(-1)}`);
      await sleep(1000); // let the bucket refill before the first scan
    }

    const logged = lines.length; // the limiter line is out already
    const oursOn = new Map<PollerName, Attempt[]>(pollers.map((poller) => [poller, []]));
    const ours = oursOn.get(pollers[0]!)!;
    const nmap: Attempt[] = [];
    const sweep: Attempt[] = [];
    const show = (label: string, a: Attempt): void => {
      log(`  ${label}: ${'error' in a ? `failed: ${a.error.split('\n')[0]}` : `${seconds(a.ms)}, wrong ${count(a.wrong)}`}`);
    };
    for (let round = 0; round < runs; round++) {
      for (const [poller, attempts] of oursOn) {
        attempts.push(await attempt(() => runOurs(host.ipv4, truth, true, poller, 'connect')));
        show(`round ${round + 1} selfscan (${poller})`, attempts.at(-1)!);
      }
      if (c.anchors.includes('nmap') && !(quick && c.nmapOnceWhenQuick && round > 0)) {
        nmap.push(await attempt(() => runNmap(host.ipv4, truth, 'T4', c.nmapTimeoutMs)));
        show(`round ${round + 1} nmap`, nmap.at(-1)!);
      }
      if (c.anchors.includes('sweep')) {
        sweep.push(await attempt(() => runSweep(host.ipv4, truth)));
        show(`round ${round + 1} sweep`, sweep.at(-1)!);
      }
    }

    const oursMs = medianMs(ours);
    const exact = allExact(ours);
    lines.push(`selfscan deep scan (${pollers[0]}): ${describeRuns(ours)}`);
    switch (c.goal.kind) {
      case 'nmap-ratio': {
        const ratio = oursMs / medianMs(nmap);
        lines.push(`ratio selfscan/nmap ${ratio.toFixed(2)} (goal ≤ ${c.goal.max} with identical port states): ${verdict(ratio <= c.goal.max && exact)}`);
        break;
      }
      case 'seconds':
        lines.push(`selfscan median ${seconds(oursMs)} (goal ≤ ${c.goal.max} s with identical port states): ${verdict(oursMs <= c.goal.max * 1000 && exact)}`);
        break;
      case 'floor': {
        const ratio = oursMs / floorMs;
        lines.push(`ratio selfscan/floor ${ratio.toFixed(2)} (goal ≤ ${c.goal.max} with identical port states): ${verdict(ratio <= c.goal.max && exact)}`);
        break;
      }
    }
    for (const poller of pollers.slice(1)) {
      const other = oursOn.get(poller)!;
      const ratio = medianMs(other) / oursMs;
      const met = verdict(ratio <= POLLER_RATIO_GOAL && allExact(other));
      lines.push(
        `selfscan deep scan (${poller}): ${describeRuns(other)}; ratio ${poller}/${pollers[0]} ${ratio.toFixed(2)} (goal ≤ ${POLLER_RATIO_GOAL} with identical port states): ${met}` +
          (nmap.length > 0 ? `; ratio ${poller}/nmap ${ratioTo(medianMs(other), nmap)}` : ''),
      );
    }
    if (nmap.length > 0) {
      const quickNote = nmap.length < runs ? ` (${nmap.length} run: --quick)` : '';
      lines.push(`${NMAP_LABEL}${quickNote}: ${describeRuns(nmap)}; ratio selfscan/nmap ${ratioTo(oursMs, nmap)}`);
    }
    if (sweep.length > 0) lines.push(`${SWEEP_LABEL}: ${describeRuns(sweep)}; ratio selfscan/sweep ${ratioTo(oursMs, sweep)}`);
    for (const line of lines.slice(logged)) log(`  ${line}`);
    return { title: c.title, lines };
  } finally {
    await host.close();
  }
}
