// The engines part's load case (issues #28 and #44): twenty deep scans of
// twenty friendly hosts on veths as support/netns-host.ts makes them, all at
// once in one process (bench/scanner/scan-many-process.mjs), on the SYN
// engine and on the connect engine, alternating with the bare sender
// (bench/syn-send: 65,535 SYNs to the first host, nothing read). Every port
// of every host must come out exact, and the SYN engine's aggregate rate
// (all hosts' ports ÷ the whole process's wall time) must be at least 0.7×
// the bare sender's SYNs/s and twice the connect engine's (issue #44).
import { fileURLToPath } from 'node:url';

import type { EngineName } from '../../src/native/engine-choices.js';
import { assertAllowedTarget } from '../../support/allowed-target.js';
import { createNetnsHost, type NetnsHost } from '../../support/netns-host.js';
import { median } from '../lib/machine.js';
import { lastJsonLine, runTimed } from '../lib/timed-child.js';
import { bareSenderTo } from '../syn-send/bare-sender.js';
import { describeRunsWithCpu, progressLine } from './engine-figures.js';
import { FRIENDLY } from './engine-friendly.js';
import type { ScanProcessResult, ToolRun } from './scan-runners.js';
import type { CaseFigures } from './scanner-case-run.js';
import { wrongOf } from './scanner-concurrent-paths.js';
import { type Attempt, allExact, attempt, count, isRun, verdict } from './scanner-figures.js';

const HOSTS = 20;
const PORTS = HOSTS * 65535;
/** The SYN engine's aggregate rate against the bare sender's and the connect engine's (issue #44). */
const GOAL = { perBareSender: 0.7, perConnect: 2 } as const;
const ENGINES: readonly EngineName[] = ['syn', 'connect'];
const SCAN_MANY = fileURLToPath(new URL('./scan-many-process.mjs', import.meta.url));
const TIMEOUT_MS = 10 * 60_000;

/** One run of the twenty scans on `engine`: the whole process's wall and CPU time; wrong states summed over the hosts. */
async function scanAll(hosts: readonly NetnsHost[], engine: EngineName): Promise<ToolRun> {
  const args = [SCAN_MANY, ...hosts.map((h) => h.ipv4), '--engine', engine, '--budget-ms', String(TIMEOUT_MS - 60_000)];
  const { stdout, elapsedMs } = await runTimed(process.execPath, args, TIMEOUT_MS);
  const result = lastJsonLine<{ scans: ScanProcessResult[]; engine: EngineName; cpuMs: number }>(stdout);
  if (result.engine !== engine) throw new Error(`asked for the ${engine} engine, the ${result.engine} engine ran`);
  const wrong = result.scans.map((scan, i) => wrongOf(scan, hosts[i]!));
  const examples = wrong.flatMap((w, i) => (w > 0 ? [`host ${i + 1}: ${w} wrong`] : [])).slice(0, 5);
  return { ms: elapsedMs, cpuMs: result.cpuMs, wrong: wrong.reduce((a, b) => a + b, 0), examples, note: '' };
}

/** Median aggregate ports per second of the runs that finished. */
function medianRate(attempts: readonly Attempt[]): number {
  return median(attempts.filter(isRun).map((r) => PORTS / (r.ms / 1000)));
}

/** `runs` rounds of both engines on fresh hosts. */
export async function runConcurrentEngines(runs: number, log: (line: string) => void): Promise<CaseFigures> {
  const hosts: NetnsHost[] = [];
  try {
    for (let i = 0; i < HOSTS; i++) hosts.push(await createNetnsHost(FRIENDLY.host));
    for (const host of hosts) assertAllowedTarget(host.ipv4);
    log(`concurrent: ${HOSTS} friendly hosts (${hosts[0]!.ipv4} … ${hosts.at(-1)!.ipv4}), all scanned at once in one process`);
    const runsOf = new Map<EngineName, Attempt[]>(ENGINES.map((engine) => [engine, []]));
    const bare = await bareSenderTo(hosts[0]!.ipv4);
    const bareRates: number[] = [];
    for (let round = 1; round <= runs; round++) {
      for (const [engine, attempts] of runsOf) {
        attempts.push(await attempt(() => scanAll(hosts, engine)));
        log(progressLine(round, engine, attempts.at(-1)!));
      }
      const sent = await bare.send('packet');
      bareRates.push(sent.packets / sent.seconds);
      log(`round ${round} bare sender: ${count(bareRates.at(-1)!)} SYNs/s`);
    }
    const syn = runsOf.get('syn')!;
    const connect = runsOf.get('connect')!;
    const perConnect = medianRate(syn) / medianRate(connect);
    const perBare = medianRate(syn) / median(bareRates);
    const met = perBare >= GOAL.perBareSender && perConnect >= GOAL.perConnect && allExact(syn) && allExact(connect);
    const lines = [
      `syn engine: whole process ${describeRunsWithCpu(syn)}; aggregate median ${count(medianRate(syn))} ports/s`,
      `connect engine: whole process ${describeRunsWithCpu(connect)}; aggregate median ${count(medianRate(connect))} ports/s`,
      `bare sender (AF_PACKET + sendmmsg, 65,535 SYNs to one host, nothing read): median ${count(median(bareRates))} SYNs/s`,
      `syn engine aggregate ${perBare.toFixed(2)}× the bare sender's rate (goal ≥ ${GOAL.perBareSender}) and ${perConnect.toFixed(2)}× the connect engine's (goal ≥ ${GOAL.perConnect}), every port of every host exact: ${verdict(met)}`,
    ];
    for (const line of lines) log(`  ${line}`);
    return { title: `${HOSTS} deep scans of ${HOSTS} friendly hosts, all at once in one process (${count(PORTS)} ports)`, lines };
  } finally {
    for (const host of hosts) await host.close();
  }
}
