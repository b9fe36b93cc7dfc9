// npm run bench:scanner — the scanner benchmark (issues #13 and #24): our
// deep scan of network-namespace hosts (friendly, all-but-four-dropped,
// SYN-limited, RST-limited, on a veth and behind internet-like paths; see
// scanner-cases.ts) beside nmap -sT -p- -T4 and, on the dropping host, a
// RustScan-like fixed-batch sweep; then our loopback sweep rate beside nmap
// -T5's, and twenty deep scans of twenty hosts on 200 ms paths at once.
// Every scan is a process of its own, timed whole, alternating ours with
// the anchors. Figures go to bench/RESULTS.md's `scanner` section when
// every case ran.
//
// Options: --runs N (default 3), --quick (nmap once on each hostile host),
// --cases a,b (only those cases, printed but not recorded), --pollers a,b
// (the readiness backends our deep scans run on, each every round; default
// epoll,poll: the goals judge the first, the others are compared with it).
// Our scans here run the connect engine (the SYN engine has the engines
// part below), so these rows keep measuring what they always did.
//
// --part scanner (default: the above), engines (issue #28's comparison of
// our SYN and connect engines with nmap -sS and masscan, engines.ts, with
// its own RESULTS.md section; it honours --runs and --cases, whose names
// are the cases above and `concurrent`; not --quick or --pollers) or all
// (both, the scanner part first).
import { parseArgs } from 'node:util';

import { POLLERS, type PollerName } from '../../src/native/poller-choices.js';
import { kernelHz, machineLine } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';
import { ENGINE_CASE_KEYS, runEnginesPart } from './engines.js';
import { type CaseFigures, runCase } from './scanner-case-run.js';
import { CASES } from './scanner-cases.js';
import { runConcurrentPaths } from './scanner-concurrent-paths.js';
import { runLoopbackSweep } from './scanner-loopback.js';

/** The names --cases may give each part. */
const CASE_KEYS_OF_PART = { scanner: CASES.map((c) => c.key), engines: ENGINE_CASE_KEYS };
/** What --part may name: a part, or both in order. */
const PARTS = { scanner: ['scanner'], engines: ['engines'], all: ['scanner', 'engines'] } as const;

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    quick: { type: 'boolean', default: false },
    cases: { type: 'string' },
    pollers: { type: 'string', default: 'epoll,poll' },
    part: { type: 'string', default: 'scanner' },
  },
});
if (!Object.hasOwn(PARTS, values.part)) throw new Error(`unknown part ${values.part}; known: ${Object.keys(PARTS).join(', ')}`);
const parts: readonly (keyof typeof CASE_KEYS_OF_PART)[] = PARTS[values.part as keyof typeof PARTS];
const runs = Math.max(1, Math.floor(Number(values.runs)) || 1);
const quick = values.quick;
const known = [...new Set(parts.flatMap((part) => CASE_KEYS_OF_PART[part]))];
const wanted = values.cases?.split(',').map((c) => c.trim()) ?? known;
const unknown = wanted.filter((key) => !known.includes(key));
if (unknown.length > 0) {
  throw new Error(`unknown case(s) ${unknown.join(', ')}; known: ${known.join(', ')}`);
}
const pollers = values.pollers.split(',').map((p) => p.trim()) as PollerName[];
const badPollers = pollers.filter((p) => !(POLLERS as readonly string[]).includes(p));
if (pollers.length === 0 || badPollers.length > 0) throw new Error(`unknown poller(s) ${badPollers.join(', ')}; known: ${POLLERS.join(', ')}`);
const log = (line: string): void => console.log(line);

console.log(`machine: ${machineLine()}`);
if (parts.includes('scanner')) await runScannerPart();
if (parts.includes('engines')) {
  console.log(`\nengines part: ${runs} run(s) each, alternating; cases: ${wanted.join(', ')}`);
  await runEnginesPart(runs, wanted, log);
}

/** The deep scans of scanner-cases.ts against the anchors, the loopback sweep and the concurrent paths; the `scanner` section. */
async function runScannerPart(): Promise<void> {
  const complete = CASES.every((c) => wanted.includes(c.key));
  const hz = kernelHz();
  console.log(`${runs} run(s) each, alternating${quick ? ', --quick' : ''}; cases: ${wanted.join(', ')}; pollers: ${pollers.join(', ')}`);

  const figures: CaseFigures[] = [];
  let loopbackLine: string | undefined;
  for (const c of CASES.filter((c) => wanted.includes(c.key))) {
    figures.push(await runCase(c, { runs, quick, pollers, log }));
    if (c.key === 'friendly') loopbackLine = await runLoopbackSweep(runs, log);
  }

  const concurrentLine = complete ? await runConcurrentPaths(log) : undefined;

  console.log('');
  for (const { title, lines } of figures) {
    console.log(title);
    for (const line of lines) console.log(`  ${line}`);
  }
  if (loopbackLine !== undefined) console.log(loopbackLine);
  if (concurrentLine !== undefined) console.log(concurrentLine);

  if (!complete) {
    console.log('\nnot every case ran: bench/RESULTS.md left as it was');
  } else {
    recordSection(
      'scanner',
      'Scanner: deep scans of friendly and hostile hosts, on a veth and behind internet-like paths, against nmap; loopback sweep rate (npm run bench:scanner)',
      [
        `Hosts: network namespaces over veth pairs (support/netns-host.ts), scanned over IPv4, all 65,535 ports; the path cases put support/netns-path.ts's emulator between scanner and host (NFQUEUE in a router namespace between the root namespace and the host: half the round trip each way ± the jitter, uniform; random loss each way decided by the emulator). ${runs} run(s) of each tool per host, alternating ours with the anchors${quick ? ' (--quick: nmap once on each hostile host)' : ''}. ` +
          "Every time is the whole process's wall time, start-up included: ours is `node bench/scanner/scan-process.mjs` over the tsc build (with Node's start-up; the scan call alone is given beside it), nmap is `nmap -sT -p- -n -Pn -T4`, the sweep is bench/scanner/fixed-batch-sweep.ts under `prlimit --nofile=20000`. " +
          `Our scans read banners, the others do not, and run on each readiness backend of --pollers (${pollers.join(', ')}) every round; the goals judge ${pollers[0]}, another backend is held to ≤ 1.3× its median (issue #31: good enough as the fallback). Wrong states: ports whose state differs from the fixture's truth (every run's count is listed).`,
        '',
        'Limiter floors: a limited host cannot be scanned faster than the packets a complete scan needs pass its limiter, so the goal there is a multiple of that floor. ' +
          `The rate asked of iptables is not always the rate a host lets through: the SYN limiter (hashlimit, run through nft's xtables compatibility) refills once per jiffy (CONFIG_HZ=${hz ?? 'unknown'} here), caps each refill at the burst (so it never passes more than burst × HZ a second) and rounds the rate to 1,000,000 ÷ an integer; the RST limiter (limit, which iptables-nft turns into a native nft limit) rounds it to 10,000 ÷ an integer; and with a burst worth only a few milliseconds at the rate, every pause of the sender loses tokens. ` +
          "So the true rate is measured on each host before its runs (support/limiter-rate.ts: three processes keep 1,000 connects each to closed ports in flight with a 250 ms timeout, far above the limit; the growth of the limiter chain's RETURN counter inside the namespace divided by the time, over a ~3 s window in which its DROP counter grew in every 0.5 s sample and by at least half as much; the best of two such windows, since a pause of the flood can only make one read low), and the floor is the packets a complete scan needs ÷ that rate.",
        '',
        ...figures.flatMap(({ title, lines }) => [`- ${title}`, ...lines.map((line) => `  - ${line}`)]),
        ...(loopbackLine === undefined ? [] : [`- ${loopbackLine}`]),
        ...(concurrentLine === undefined ? [] : [`- ${concurrentLine}`]),
      ],
    );
    console.log('\nbench/RESULTS.md: scanner section rewritten');
  }
}
