// npm run bench:udp — a whole udp sweep of the fixed probe list against
// `nmap -sU` (and `nmap -sU -sV --version-intensity 0`) on the same ports of
// the same host, in the same run: Debian's real UDP servers in a network
// namespace (support/udp-services-host.ts), one port dropped by iptables,
// the rest closed, the namespace's ICMP rate limit at the kernel's default;
// on a bare veth and behind an internet-like path (80 ms, 1 % loss), over
// IPv4 and IPv6; ours from one address, and from 4 (scanner.udpSourceAddresses:
// the probes shared out, each address with its own ICMP budget at the
// target). Ours runs --runs times (alternating with nmap), each checked
// against the host's truth; nmap once per variant, from one address.
//
//   --runs N   our sweeps per target (default 3)
//
// Exits 1 when any of our sweeps is wrong.
import { parseArgs } from 'node:util';

import { UDP_PROBES } from '../../src/udp/udp-probes.js';
import { type UdpPortState, udpSweep } from '../../src/udp/udp-sweep.js';
import { type NmapUdpResult, nmapUdpScan } from '../../support/nmap.js';
import { createUdpServicesHost, type UdpServicesHost } from '../../support/udp-services-host.js';
import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '3' } } });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1 || runs > 50) throw new Error(`--runs must be a whole number from 1 to 50, got ${values.runs}`);

const DROPPED = 5060;
/** Source addresses of the pooled sweeps. */
const SOURCES = 4;
const PORTS = UDP_PROBES.map((probe) => probe.port);

/** What each probed port of `host` is: open where a server listens, filtered where dropped, closed elsewhere. */
function truthOf(host: UdpServicesHost): Map<number, UdpPortState> {
  const open = new Set(host.ports.values());
  return new Map(PORTS.map((port) => [port, open.has(port) ? 'open' : port === DROPPED ? 'filtered' : 'closed']));
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
const count = (states: Iterable<string>, state: string): number => [...states].filter((s) => s === state).length;

/** nmap's states in words: how many of each, and how many disagree with the truth (its `open|filtered` for a filtered port agrees). */
function nmapLine(result: NmapUdpResult, truth: Map<number, UdpPortState>): string {
  const states = [...result.states.values()];
  const wrong = PORTS.filter((port) => {
    const said = result.states.get(port);
    const is = truth.get(port);
    return !(said === is || (said === 'open|filtered' && is === 'filtered'));
  });
  const summary = ['open', 'closed', 'filtered', 'open|filtered'].map((state) => `${count(states, state)} ${state}`).join(', ');
  return `${seconds(result.elapsedMs)} (${summary}; ${wrong.length} not as the truth${wrong.length > 0 ? `: ${wrong.join(', ')}` : ''})`;
}

interface Row {
  target: string;
  ours: number[];
  oursWrong: number;
  nmap: NmapUdpResult;
  nmapV0: NmapUdpResult;
  truth: Map<number, UdpPortState>;
  settledBy: string[];
}

/** Our sweeps of `address` from `sources` (none: the kernel's choice), and nmap's unless `nmapOf` already has them. */
async function measure(label: string, host: UdpServicesHost, address: string, sources: string[] = [], nmapOf?: Row): Promise<Row> {
  const truth = truthOf(host);
  const ours: number[] = [];
  const settledBy: string[] = [];
  let oursWrong = 0;
  let nmap: NmapUdpResult | null = nmapOf?.nmap ?? null;
  let nmapV0: NmapUdpResult | null = nmapOf?.nmapV0 ?? null;
  for (let run = 0; run < runs; run++) {
    // Each tool starts with the target's ICMP budget refilled: the burst of 6 is worth 6 s on IPv4.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const result = await udpSweep(address, UDP_PROBES, { sourceAddresses: sources });
    const wrong = result.ports.filter((port) => port.state !== truth.get(port.port));
    oursWrong += wrong.length;
    ours.push(result.durationMs);
    settledBy.push(result.settledBy);
    console.log(
      `${label} ours run ${run + 1}: ${seconds(result.durationMs)}, ${result.rounds} rounds, settled by ${result.settledBy}, ${wrong.length} wrong${wrong.length > 0 ? ` (${wrong.map((p) => `${p.port} ${p.state}`).join(', ')})` : ''}`,
    );
    if (run === 0 && nmapOf === undefined) {
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      nmap = await nmapUdpScan(address, PORTS.join(','));
      console.log(`${label} nmap -sU: ${nmapLine(nmap, truth)}`);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      nmapV0 = await nmapUdpScan(address, PORTS.join(','), { versionIntensity0: true });
      console.log(`${label} nmap -sU -sV --version-intensity 0: ${nmapLine(nmapV0, truth)}`);
    }
  }
  return { target: label, ours, oursWrong, nmap: nmap!, nmapV0: nmapV0!, truth, settledBy };
}

const rows: Row[] = [];
for (const path of [null, { rttMs: 80, loss: 0.01 }]) {
  const host = await createUdpServicesHost({ dropped: [DROPPED], scannerAddresses: SOURCES, ...(path === null ? {} : { path }) });
  try {
    const where = path === null ? 'veth' : '80 ms, 1 % loss';
    for (const family of ['ipv4', 'ipv6'] as const) {
      const name = `${where}, ${family === 'ipv4' ? 'IPv4' : 'IPv6'}`;
      const single = await measure(name, host, host[family]);
      rows.push(single, await measure(`${name}, from ${SOURCES} addresses`, host, host[family], host.scannerAddresses[family], single));
    }
  } finally {
    await host.close();
  }
}

const truthLine = (truth: Map<number, UdpPortState>): string =>
  ['open', 'closed', 'filtered'].map((state) => `${count(truth.values(), state)} ${state}`).join(', ');
const table = [
  `| target | ours: median of ${runs} (min–max) | ours wrong | nmap -sU | nmap -sU -sV --version-intensity 0 | ours ÷ nmap -sU |`,
  '|---|---|---|---|---|---|',
  ...rows.map((row) => {
    const ours = median(row.ours);
    // nmap's `open|filtered` would end a table cell.
    const cell = (result: NmapUdpResult): string => nmapLine(result, row.truth).replaceAll('|', '\\|');
    return `| ${row.target} (${truthLine(row.truth)}) | ${seconds(ours)} (${seconds(Math.min(...row.ours))}–${seconds(Math.max(...row.ours))}) | ${row.oursWrong} | ${cell(row.nmap)} | ${cell(row.nmapV0)} | ${(ours / row.nmap.elapsedMs).toFixed(2)} |`;
  }),
];
for (const line of table) console.log(line);
const intro = `A whole udp sweep (${UDP_PROBES.length} probes: ${PORTS.join(', ')}) of a network namespace running Debian's real servers (dnsmasq recursive for example.com, chrony, snmpd, memcached -U, inetd's chargen, tftpd-hpa, rpcbind, libcoap3's CoAP server; Debian has no QOTD server), UDP ${DROPPED} dropped by iptables, the other ports closed; the namespace's ICMP rate limit at the kernel's default (IPv4: a burst of 6 port unreachables, then one a second). Ours sends from one address, then from ${SOURCES} (scanner.udpSourceAddresses: the probes shared out, ${UDP_PROBES.length / SOURCES} an address, each address with its own ICMP budget at the host); nmap from one (its figures repeated on the pooled rows, from the same run). Each tool starts 6 s after the last, so each meets a full ICMP burst. Goals: veth ≤ 2 s, 80 ms and 1 % loss ≤ 5 s, exact.`;
recordSection('udp', 'UDP: a udp sweep against nmap -sU on the same ports of the same host (npm run bench:udp)', [intro, '', ...table]);
const wrong = rows.reduce((sum, row) => sum + row.oursWrong, 0);
if (wrong > 0) console.error(`bench:udp: ${wrong} wrong states`);
process.exitCode = wrong > 0 ? 1 : 0;
