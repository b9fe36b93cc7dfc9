// npm run bench:scanner — our deep scan against `nmap -sT -p- -T4 -n` on the
// same network-namespace host (64,530 closed, 1,000 filtered, 5 open),
// alternating, then our sweep rate against loopback beside nmap -T5's.
// Prints medians and ratios; `--runs N` (default 5).
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

import { createScanner } from '../src/native/scanner.js';
import { createNetnsHost } from '../test/fixtures/netns-host.js';
import { nmapScan } from '../test/fixtures/nmap.js';
import { ALL_PORTS, mismatches, statesOf } from '../test/helpers/scan-compare.js';
import { machineLine, median } from './machine.js';
import { recordSection } from './results-file.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Math.max(1, Number(values.runs));
const scanner = createScanner();

async function ourDeepScan(ip: string, truth: (port: number) => string): Promise<number> {
  const started = performance.now();
  const summary = await scanner.scan({ ip, ports: [...ALL_PORTS] }).done;
  const elapsed = performance.now() - started;
  const wrong = mismatches(statesOf(summary, ALL_PORTS), truth as never);
  if (summary.status !== 'complete' || wrong.length > 0) {
    throw new Error(`our scan of ${ip} was not exact: ${wrong.slice(0, 5).join(', ')}`);
  }
  return elapsed;
}

const host = await createNetnsHost();
try {
  console.log(`machine: ${machineLine()}`);
  console.log(`fixture: ${host.ipv4}, ${host.truth().size} non-closed ports, ${runs} runs each, alternating`);
  const ours: number[] = [];
  const theirs: number[] = [];
  for (let i = 0; i < runs; i++) {
    ours.push(await ourDeepScan(host.ipv4, (port) => host.stateOf(port)));
    const nmap = await nmapScan(host.ipv4, { timing: 'T4' });
    const wrong = mismatches(nmap.states, (port) => host.stateOf(port));
    if (wrong.length > 0) throw new Error(`nmap disagreed with the fixture: ${wrong.slice(0, 5).join(', ')}`);
    theirs.push(nmap.elapsedMs);
  }
  const ratio = median(ours) / median(theirs);
  const deepLine = `deep scan, netns host: selfscan median ${median(ours).toFixed(0)} ms, nmap -sT -p- -T4 median ${median(theirs).toFixed(0)} ms, ratio ours/nmap ${ratio.toFixed(2)} (goal ≤ 0.5; identical port states)`;
  const runsLine = `  runs: selfscan ${ours.map((v) => v.toFixed(0)).join(', ')} ms; nmap ${theirs.map((v) => v.toFixed(0)).join(', ')} ms`;
  console.log(deepLine);
  console.log(runsLine);

  const loopOurs: number[] = [];
  const loopNmap: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const summary = await scanner.scan({ ip: '127.0.0.1', ports: [...ALL_PORTS], banners: false }).done;
    loopOurs.push(65535 / ((performance.now() - started) / 1000));
    if (summary.portsScanned !== 65535) throw new Error('loopback sweep left ports undecided');
    const nmap = await nmapScan('127.0.0.1', { timing: 'T5' });
    loopNmap.push(65535 / (nmap.elapsedMs / 1000));
  }
  const loopLine = `loopback sweep: selfscan median ${median(loopOurs).toFixed(0)} ports/s (goal ≥ 100,000), nmap -sT -p- -T5 median ${median(loopNmap).toFixed(0)} ports/s, ratio ${(median(loopOurs) / median(loopNmap)).toFixed(2)}`;
  console.log(loopLine);
  recordSection('scanner', 'Scanner: deep scan against nmap, loopback sweep rate (npm run bench:scanner)', [
    `Fixture: a network-namespace host over a veth pair, 64,530 closed, 1,000 filtered (iptables DROP), 5 open ports; ${runs} runs each, alternating. Our scan includes banner reads; nmap's does not.`,
    '',
    `- ${deepLine}`,
    `- ${runsLine.trim()}`,
    `- ${loopLine}`,
  ]);
} finally {
  await host.close();
}
