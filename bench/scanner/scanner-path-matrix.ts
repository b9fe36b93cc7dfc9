// npm run bench:path-matrix — issue #24's whole matrix of internet paths,
// which the tests only sample: round trips of 20, 50 and 200 ms (jitter a
// tenth of it) with 0.1, 1 and 2 % random loss each way, burst loss, and a
// 10 Mbit/s bottleneck, each in front of a closed host, a host that drops
// every SYN but four listeners, a SYN-limited and an RST-limited one; one
// deep scan (a whole process, as bench:scanner times it) of each over IPv4,
// and over IPv6 on the 50 ms, 1 % row. Every port must come out exact. No
// nmap here: bench:scanner runs it beside the four headline cases (at -T4
// it needs 3 to over 10 minutes a run on these paths).
import { createNetnsHost, type NetnsHostOptions } from '../../support/netns-host.js';
import type { PathOptions } from '../../support/netns-path.js';
import { recordSection } from '../lib/results-file.js';
import { runOurs } from './scan-runners.js';
import { DROP_ALL_BUT_FOUR, RST_LIMIT, SYN_LIMIT } from './scanner-cases.js';
import { type Attempt, attempt, count, seconds } from './scanner-figures.js';

interface Cell {
  path: string;
  host: string;
  family: 'ipv4' | 'ipv6';
  options: NetnsHostOptions;
}

const HOSTS: Record<string, NetnsHostOptions> = {
  closed: {},
  'all dropped but 4': DROP_ALL_BUT_FOUR,
  'SYNs ≤ 5,000/s': { synLimit: { ...SYN_LIMIT } },
  'RSTs ≤ 2,000/s': { rstLimit: { ...RST_LIMIT } },
};

function pathName(path: PathOptions): string {
  const shape = path.burst
    ? 'burst loss (Gilbert–Elliott, ~1 % each way)'
    : path.bottleneck
      ? `${path.bottleneck.rateMbit} Mbit/s bottleneck`
      : `${(path.loss ?? 0) * 100} % loss each way`;
  return `${path.rttMs} ± ${path.jitterMs} ms, ${shape}`;
}

const PATHS: PathOptions[] = [
  ...[20, 50, 200].flatMap((rttMs) => [0.001, 0.01, 0.02].map((loss) => ({ rttMs, jitterMs: rttMs / 10, loss }))),
  { rttMs: 50, jitterMs: 5, burst: { pGoodToBad: 0.005, pBadToGood: 0.25, lossInBad: 0.5 } },
  { rttMs: 20, jitterMs: 2, bottleneck: { rateMbit: 10, latencyMs: 5 } },
];

const CELLS: Cell[] = PATHS.flatMap((path) =>
  Object.entries(HOSTS).flatMap(([host, options]) => {
    const families: Cell['family'][] = path.rttMs === 50 && path.loss === 0.01 ? ['ipv4', 'ipv6'] : ['ipv4'];
    return families.map((family) => ({ path: pathName(path), host, family, options: { ...options, path } }));
  }),
);

function describe(a: Attempt): { time: string; wrong: string } {
  if ('error' in a) return { time: `failed: ${a.error.split('\n')[0]}`, wrong: '–' };
  return { time: seconds(a.ms), wrong: count(a.wrong) };
}

const rows: string[] = [];
let wrongCells = 0;
console.log(`${CELLS.length} deep scans, one a cell`);
for (const cell of CELLS) {
  const host = await createNetnsHost(cell.options);
  let result: Attempt;
  try {
    const ip = cell.family === 'ipv4' ? host.ipv4 : host.ipv6;
    result = await attempt(() => runOurs(ip, (port) => host.stateOf(port), true, 'auto', 'connect'));
  } finally {
    await host.close();
  }
  if ('error' in result || result.wrong > 0) wrongCells++;
  const { time, wrong } = describe(result);
  rows.push(`| ${cell.path} | ${cell.host} | ${cell.family} | ${time} | ${wrong} |`);
  console.log(rows.at(-1));
}

const verdict = `${CELLS.length - wrongCells} of ${CELLS.length} scans exact`;
console.log(verdict);
recordSection('scanner-path-matrix', 'Scanner: the matrix of internet paths (npm run bench:path-matrix)', [
  "One deep scan of all 65,535 ports per cell, a whole process (`node bench/scanner/scan-process.mjs` over the tsc build, banners read), each host a network namespace behind support/netns-path.ts's emulator (jitter uniform, a tenth of the round trip; random loss each way decided by the emulator; the bottleneck is tbf on both of the router namespace's veth ends with a 5 ms queue). Hosts: closed (64,530 closed, 1,000 filtered, 5 open); all SYNs dropped but four listeners; SYNs above 5,000/s per source dropped (hashlimit, burst 100); RSTs above 2,000/s dropped (limit, burst 20). Wrong: ports whose state differs from the fixture's truth.",
  '',
  `${verdict}.`,
  '',
  '| path | host | family | time | wrong |',
  '|---|---|---|---|---|',
  ...rows,
]);
console.log('bench/RESULTS.md: scanner-path-matrix section rewritten');
