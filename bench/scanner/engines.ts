// The scanner benchmark's engines part (issue #28; npm run bench:scanner --
// --part engines): our SYN engine against our connect engine on the
// friendly host, with nmap -sS and masscan beside them, on a plain and a
// remote-like veth (engine-friendly.ts); on every hostile and internet-path
// host (engine-hostile.ts); and twenty hosts scanned at once
// (engine-concurrent.ts). Every scan is a process of its own, timed whole
// with its CPU, alternating the tools. Figures go to bench/RESULTS.md's
// `scanner-engines` section when every case ran, at least 3 times each.
import { recordSection } from '../lib/results-file.js';
import { runConcurrentEngines } from './engine-concurrent.js';
import { FRIENDLY, runFriendlyRow } from './engine-friendly.js';
import { runEnginesOnCase } from './engine-hostile.js';
import { MASSCAN_LABEL, MASSCAN_RATE, NMAP_SYN_LABEL } from './engine-raw-anchors.js';
import type { VethShape } from './engine-veth.js';
import type { CaseFigures } from './scanner-case-run.js';
import { CASES } from './scanner-cases.js';
import { count } from './scanner-figures.js';

const HOSTILE = CASES.filter((c) => c !== FRIENDLY);
const CONCURRENT = 'concurrent';
const SHAPES: readonly VethShape[] = ['plain', 'remote-like'];
const RUNS_TO_RECORD = 3;

/** What --cases may name in this part: the cases of scanner-cases.ts and `concurrent`. */
export const ENGINE_CASE_KEYS: readonly string[] = [...CASES.map((c) => c.key), CONCURRENT];

/** Runs the `wanted` cases `runs` times each, prints their figures and records them when the run was whole. */
export async function runEnginesPart(runs: number, wanted: readonly string[], log: (line: string) => void): Promise<void> {
  const figures: CaseFigures[] = [];
  if (wanted.includes(FRIENDLY.key)) for (const shape of SHAPES) figures.push(await runFriendlyRow(shape, runs, log));
  for (const c of HOSTILE.filter((c) => wanted.includes(c.key))) figures.push(await runEnginesOnCase(c, runs, log));
  if (wanted.includes(CONCURRENT)) figures.push(await runConcurrentEngines(runs, log));

  console.log('');
  for (const { title, lines } of figures) {
    console.log(title);
    for (const line of lines) console.log(`  ${line}`);
  }
  if (!ENGINE_CASE_KEYS.every((key) => wanted.includes(key)) || runs < RUNS_TO_RECORD) {
    console.log(`\nnot every case ran, or fewer than ${RUNS_TO_RECORD} times: bench/RESULTS.md's scanner-engines section left as it was`);
    return;
  }
  recordSection(
    'scanner-engines',
    'Scanner engines: the SYN engine against the connect engine, nmap -sS and masscan (npm run bench:scanner -- --part engines)',
    [
      `Hosts: network namespaces over veth pairs (support/netns-host.ts), scanned over IPv4, all 65,535 ports, banners read by ours. ${runs} runs of each tool per host, alternating. ` +
        "Every time is the whole process's, start-up included. CPU is the process's user + system time over all its threads: ours from process.cpuUsage() as `node bench/scanner/scan-process.mjs --engine syn|connect` (or scan-many-process.mjs) ends, nmap's and masscan's from GNU time (`time -f '%U %S'`: the child's rusage).",
      '',
      "The friendly row runs on two veths. On a plain veth the receiver's whole path runs inside the sender's transmit call, so the host's kernel work for each SYN (the SYN in, its RST out) is billed to a raw-packet scanner's send syscalls: its CPU there includes the target's. " +
        "The remote-like veth turns GRO on and NAPI threaded on both ends (`ethtool -K <dev> gro on tso off gso off`, `echo 1 > /sys/class/net/<dev>/threaded`, set by bench/scanner/engine-veth.ts after the host is made), so each end's receive work runs in a kernel thread of its own (napi/<dev>), as a real NIC's does, and a process's CPU is its own. " +
        'Both have TSO and GSO off on both ends: with an offload on, libpcap sizes its capture ring for 64 KiB frames and masscan (immediate mode, 65,536-byte snaplen) then drops most answers; no scan packet uses them.',
      '',
      `${MASSCAN_LABEL} is masscan 1.3.2 pointed at the host by hand: --adapter the veth's root end, --adapter-ip that end's own address (the root kernel resets the open ports' SYN-ACKs too: harmless), --router-mac the namespace end's MAC (the host is on the link; masscan would ARP for a default gateway the veth has not got), --show closed for the RSTs, --wait 0 (a veth's answers are in before it looks), -oL - for the list. ` +
        `--rate ${count(MASSCAN_RATE)}: on the plain veth it found exactly the 5 open and 64,530 closed ports at every rate tried from 100,000 to 10,000,000 packets/s; its one send thread tops out near 100,000/s here, so no rate loses an answer and this one asks more than it can send. ` +
        "It sends one SYN per port, never resends, and reports open and closed ports only: a port it does not report reads filtered. On the remote-like veth no rate was exact in trials (5,000 to 1,000,000/s): the namespace end's NAPI ring (256 packets) overflows whenever that end's thread is not scheduled in time, and with GRO on at its capturing end libpcap's ring is back to a few 64 KiB frames; its wrong states there are answers it lost. " +
        "Its receive thread reads its stop flag only when libpcap hands it a packet, which on an idle veth can take seconds (once minutes): one UDP datagram to the host's discard port every 10 ms while it runs wakes it, as other traffic on a real network would. " +
        `${NMAP_SYN_LABEL} resends as ours does.`,
      '',
      "Goals (issue #44): on the friendly host the SYN engine's scan call at most 1.5× the bare sender's sending (bench/syn-send/syn-send.c: the same host's 65,535 SYNs through AF_PACKET and sendmmsg, nothing read, run in the same rounds), its whole process at most 0.35× the connect engine's CPU and 0.6× its wall time (medians, every port exact); twenty friendly hosts on plain veths scanned at once in one process, the SYN engine's aggregate ports/s (all hosts' ports ÷ the whole process's wall time) at least 0.7× the bare sender's SYNs/s and 2× the connect engine's; on every hostile and internet-path host both engines exact and the SYN engine no slower (ratio of the medians ≤ 1.0).",
      '',
      ...figures.flatMap(({ title, lines }) => [`- ${title}`, ...lines.map((line) => `  - ${line}`)]),
    ],
  );
  console.log('\nbench/RESULTS.md: scanner-engines section rewritten');
}
