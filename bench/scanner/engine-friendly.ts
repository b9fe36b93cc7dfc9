// The engines part's friendly row (issue #28), on one shape of veth
// (engine-veth.ts): the friendly host deep-scanned by our SYN engine, our
// connect engine, nmap -sS and masscan, alternating, each a whole process
// timed with its CPU. The SYN engine's goal: at most 0.35 s wall and
// 0.15 s CPU per deep scan, every port exact.
import { createNetnsHost } from '../../support/netns-host.js';
import { describeRunsWithCpu, medianCpuMs, progressLine, ratio } from './engine-figures.js';
import { MASSCAN_LABEL, NMAP_SYN_LABEL, runMasscan, runNmapSyn } from './engine-raw-anchors.js';
import { shapeVeth, type VethShape } from './engine-veth.js';
import { runOurs, type ToolRun } from './scan-runners.js';
import type { CaseFigures } from './scanner-case-run.js';
import { CASES } from './scanner-cases.js';
import { type Attempt, allExact, attempt, medianMs, seconds, verdict } from './scanner-figures.js';

export const FRIENDLY = CASES.find((c) => c.key === 'friendly')!;
const SYN_GOAL = { wallMs: 350, cpuMs: 150 } as const;

/** A tool of the row by its short name (the ratios' "syn/masscan"), with its runs so far. */
interface Tool {
  name: string;
  run: () => Promise<ToolRun>;
  attempts: Attempt[];
}

const tool = (name: string, run: () => Promise<ToolRun>): Tool => ({ name, run, attempts: [] });

/** `runs` rounds of the four tools on a fresh friendly host whose veth is `shape`. */
export async function runFriendlyRow(shape: VethShape, runs: number, log: (line: string) => void): Promise<CaseFigures> {
  const host = await createNetnsHost(FRIENDLY.host);
  try {
    const veth = await shapeVeth(host, shape);
    const truth = (port: number) => host.stateOf(port);
    log(`friendly, ${shape} veth: ${host.ipv4} (${host.name}; ${veth.rootIf} ↔ ${veth.nsIf})`);
    const syn = tool('syn', () => runOurs(host.ipv4, truth, true, 'auto', 'syn'));
    const connect = tool('connect', () => runOurs(host.ipv4, truth, true, 'auto', 'connect'));
    const nmap = tool('nmap -sS', () => runNmapSyn(host.ipv4, truth));
    const masscan = tool('masscan', () => runMasscan(host.ipv4, veth, truth));
    for (let round = 1; round <= runs; round++) {
      for (const t of [syn, connect, nmap, masscan]) {
        t.attempts.push(await attempt(t.run));
        log(progressLine(round, t.name, t.attempts.at(-1)!));
      }
    }

    const synWall = medianMs(syn.attempts);
    const synCpu = medianCpuMs(syn.attempts);
    const met = synWall <= SYN_GOAL.wallMs && synCpu <= SYN_GOAL.cpuMs && allExact(syn.attempts);
    const versus = (other: Tool): string =>
      `ratio syn/${other.name} wall ${ratio(synWall, medianMs(other.attempts))}, CPU ${ratio(synCpu, medianCpuMs(other.attempts))}`;
    const lines = [
      `selfscan deep scan, syn engine: ${describeRunsWithCpu(syn.attempts)}`,
      `syn engine median ${seconds(synWall)} wall, ${seconds(synCpu)} CPU (goal ≤ ${seconds(SYN_GOAL.wallMs)} wall and ≤ ${seconds(SYN_GOAL.cpuMs)} CPU with identical port states): ${verdict(met)}`,
      `selfscan deep scan, connect engine: ${describeRunsWithCpu(connect.attempts)}; ${versus(connect)}`,
      `${NMAP_SYN_LABEL}: ${describeRunsWithCpu(nmap.attempts)}; ${versus(nmap)}`,
      `${MASSCAN_LABEL} (a port it does not report reads filtered): ${describeRunsWithCpu(masscan.attempts)}; ${versus(masscan)}`,
    ];
    for (const line of lines) log(`  ${line}`);
    return { title: `${FRIENDLY.title}; ${shape} veth`, lines };
  } finally {
    await host.close();
  }
}
