// The engines part's friendly row (issues #28 and #44), on one shape of veth
// (engine-veth.ts): the friendly host deep-scanned by our SYN engine, our
// connect engine, nmap -sS and masscan, each a whole process timed with its
// CPU, and the bare sender (bench/syn-send: 65,535 SYNs through AF_PACKET
// and sendmmsg, nothing read) as the limit, alternating. The SYN engine's
// goals (issue #44): its scan call at most 1.5× the bare sender's sending,
// its whole process at most 0.35× the connect engine's CPU and 0.6× its
// wall time, every port exact.
import { createNetnsHost } from '../../support/netns-host.js';
import { median } from '../lib/machine.js';
import { bareSenderTo, type Sent } from '../syn-send/bare-sender.js';
import { describeRunsWithCpu, medianCpuMs, progressLine, ratio } from './engine-figures.js';
import { MASSCAN_LABEL, NMAP_SYN_LABEL, runMasscan, runNmapSyn } from './engine-raw-anchors.js';
import { shapeVeth, type VethShape } from './engine-veth.js';
import { runOurs, type ToolRun } from './scan-runners.js';
import type { CaseFigures } from './scanner-case-run.js';
import { CASES } from './scanner-cases.js';
import { type Attempt, allExact, attempt, medianInnerMs, medianMs, seconds, verdict } from './scanner-figures.js';

export const FRIENDLY = CASES.find((c) => c.key === 'friendly')!;
/** The SYN engine's goals against the bare sender and the connect engine (issue #44). */
const SYN_GOAL = { callPerBareSend: 1.5, cpuPerConnect: 0.35, wallPerConnect: 0.6 } as const;

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
    const bare = await bareSenderTo(host.ipv4);
    const sends: Sent[] = [];
    for (let round = 1; round <= runs; round++) {
      for (const t of [syn, connect, nmap, masscan]) {
        t.attempts.push(await attempt(t.run));
        log(progressLine(round, t.name, t.attempts.at(-1)!));
      }
      sends.push(await bare.send('packet'));
      log(`round ${round} bare sender: ${seconds(sends.at(-1)!.seconds * 1000)} sending, CPU ${seconds(sends.at(-1)!.cpuSeconds * 1000)}`);
    }

    const synWall = medianMs(syn.attempts);
    const synCpu = medianCpuMs(syn.attempts);
    const synCall = medianInnerMs(syn.attempts);
    const bareMs = median(sends.map((s) => s.seconds * 1000));
    const callRatio = synCall / bareMs;
    const cpuRatio = synCpu / medianCpuMs(connect.attempts);
    const wallRatio = synWall / medianMs(connect.attempts);
    const met = callRatio <= SYN_GOAL.callPerBareSend && cpuRatio <= SYN_GOAL.cpuPerConnect && wallRatio <= SYN_GOAL.wallPerConnect && allExact(syn.attempts);
    const versus = (other: Tool): string =>
      `ratio syn/${other.name} wall ${ratio(synWall, medianMs(other.attempts))}, CPU ${ratio(synCpu, medianCpuMs(other.attempts))}`;
    const lines = [
      `selfscan deep scan, syn engine: ${describeRunsWithCpu(syn.attempts)}`,
      `bare sender (AF_PACKET + sendmmsg, 65,535 SYNs, nothing read): sending median ${seconds(bareMs)} (runs ${sends.map((s) => s.seconds.toFixed(2)).join(', ')} s), CPU median ${seconds(median(sends.map((s) => s.cpuSeconds * 1000)))}`,
      `syn engine: scan call ${callRatio.toFixed(2)}× the bare sender (goal ≤ ${SYN_GOAL.callPerBareSend}), whole process ${cpuRatio.toFixed(2)}× the connect engine's CPU (goal ≤ ${SYN_GOAL.cpuPerConnect}) and ${wallRatio.toFixed(2)}× its wall time (goal ≤ ${SYN_GOAL.wallPerConnect}), every port exact: ${verdict(met)}`,
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
