// npm run bench:syn-send — issue 28's question for the SYN engine's
// sender: batches through an IPPROTO_RAW socket with sendmmsg (what
// native/core/syn_transport_linux.cc does) or through AF_PACKET, and which
// is faster here. syn-send.c sends one deep scan's SYNs (65,535) each way
// to a namespace host over its veth; RUNS runs of each, alternating, after
// one warm-up of each; medians of the SYNs that arrived per second and of
// CPU per SYN arrived, each against (a)'s. The host has no listener and no
// firewall, so every SYN that arrives with valid checksums earns one RST:
// its TcpOutRsts counts what arrived, and a way that loses SYNs, or sends
// nothing, cannot win.
//
// On a veth as created the host's receive (SYN in, RST out, and the RST's
// receive back here) runs in softirq inside the sender's own syscalls, and
// a kernel without IRQ_TIME_ACCOUNTING (this one) charges it to the
// sender. So a second set of runs moves both ends onto threaded NAPI (GRO
// on, TSO and GSO off, /sys/class/net/DEV/threaded = 1): the host's work
// leaves the sender's syscalls for kernel threads, beside it on the cores.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';

import { createNetnsHost, requireTools } from '../../support/netns-host.js';
import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';
import { count } from '../scanner/scanner-figures.js';
import { bareSenderTo, type SendWay, type Sent } from './bare-sender.js';

const RUNS = 5;
const METHODS: Record<SendWay, { short: string; long: string }> = {
  raw: { short: '(a)', long: '(a) IPPROTO_RAW + sendmmsg (the engine)' },
  packet: { short: '(b)', long: '(b) AF_PACKET + sendmmsg' },
  'packet-bypass': { short: '(b) with bypass', long: '(b) AF_PACKET + sendmmsg, PACKET_QDISC_BYPASS' },
  'tx-ring': { short: '(c)', long: '(c) AF_PACKET TX_RING (TPACKET_V2, 256 frames), PACKET_QDISC_BYPASS, one send() per batch' },
};
type Method = SendWay;

interface Run extends Sent {
  /** RSTs the host sent during the run: the SYNs that reached it. */
  arrived: number;
}
/** One way's medians over its runs, per SYN that arrived. */
interface Figures {
  rate: number;
  /** The rate of its fastest run. */
  highest: number;
  cpuUs: number;
  arrivedShare: number;
  errors: number;
}

/** A setting's fastest way, its rate ÷ (a)'s, and the ways these runs do not tell apart from it (a run of theirs as fast as its median). */
interface Verdict {
  method: Method;
  ratio: number;
  close: Method[];
}

/** What a verdict's ways too close to call add to its sentence, or nothing. */
function apart(verdict: Verdict): string {
  if (verdict.close.length === 0) return '';
  return ` (these runs do not tell it apart from ${verdict.close.map((m) => METHODS[m].short).join(', ')}: a run of theirs was as fast as its median)`;
}

/** A kernel build option from /proc/config.gz (`y`, `m`, a value), or null where it is unset or the config is not exposed. */
function kernelConfig(name: string): string | null {
  try {
    const config = gunzipSync(readFileSync('/proc/config.gz')).toString('utf8');
    return new RegExp(`^${name}=(.*)$`, 'm').exec(config)?.[1] ?? null;
  } catch {
    return null;
  }
}

const tools = requireTools();
const loadStart = loadavg()[0]!;
const ipJson = <T>(...args: string[]): T => JSON.parse(execFileSync(tools.ip, ['-j', ...args], { encoding: 'utf8' })) as T;

/** The host's RSTs sent so far, once they stop changing (threaded NAPI answers after the sender returns). */
async function resetsSent(namespace: string): Promise<number> {
  const read = (): number => {
    const out = execFileSync(tools.ip, ['netns', 'exec', namespace, 'nstat', '-asz', '-j', 'TcpOutRsts'], { encoding: 'utf8' });
    return (JSON.parse(out) as { kernel: { TcpOutRsts: number } }).kernel.TcpOutRsts;
  };
  for (let last = read(); ; ) {
    await sleep(20);
    const now = read();
    if (now === last) return now;
    last = now;
  }
}

/** Threaded NAPI on one veth end (in `namespace`, or the root namespace). */
function threadedNapi(dev: string, namespace?: string): void {
  const run = (command: string, args: string[]): string =>
    execFileSync(namespace === undefined ? command : tools.ip, namespace === undefined ? args : ['netns', 'exec', namespace, command, ...args], {
      encoding: 'utf8',
    });
  run('ethtool', ['-K', dev, 'gro', 'on', 'tso', 'off', 'gso', 'off']);
  run('sh', ['-c', `echo 1 > /sys/class/net/${dev}/threaded`]);
  const threaded = run('cat', [`/sys/class/net/${dev}/threaded`]).trim();
  if (threaded !== '1') throw new Error(`threaded NAPI did not take on ${dev}: ${threaded}`);
}

const host = await createNetnsHost({ filtered: null, listenerPorts: [] });
const sections: string[] = [];
try {
  const sender = await bareSenderTo(host.ipv4);
  const hostDev = ipJson<{ ifname: string; link_type: string }[]>('-n', host.name, 'link').find((l) => l.link_type === 'ether')?.ifname;
  if (hostDev === undefined) throw new Error(`no veth in ${host.name}`);

  const once = async (method: Method): Promise<Run> => {
    const before = await resetsSent(host.name);
    const sent = await sender.send(method);
    const run = { ...sent, arrived: (await resetsSent(host.name)) - before };
    console.log(JSON.stringify(run));
    return run;
  };

  const measure = async (): Promise<Map<Method, Figures>> => {
    const runs = new Map<Method, Run[]>(Object.keys(METHODS).map((m) => [m as Method, []]));
    for (const method of runs.keys()) await once(method);
    for (let round = 0; round < RUNS; round++) {
      for (const [method, list] of runs) list.push(await once(method));
    }
    const total = (list: Run[], key: keyof Run): number => list.reduce((sum, r) => sum + r[key], 0);
    return new Map(
      [...runs].map(([method, list]) => [
        method,
        {
          rate: median(list.map((r) => r.arrived / r.seconds)),
          highest: Math.max(...list.map((r) => r.arrived / r.seconds)),
          cpuUs: median(list.map((r) => (r.cpuSeconds / r.arrived) * 1e6)),
          arrivedShare: total(list, 'arrived') / total(list, 'packets'),
          errors: total(list, 'errors'),
        },
      ]),
    );
  };

  /** Appends a setting's table and verdict to the section, and returns the verdict. */
  const report = (setting: string, figures: Map<Method, Figures>): Verdict => {
    const base = figures.get('raw')!;
    const lines = [
      `**${setting}**`,
      '',
      '| way | SYNs arrived/s | ÷ (a) | CPU µs per SYN arrived | ÷ (a) | arrived ÷ sent | failed send calls (resent) |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    ];
    for (const [method, f] of figures) {
      lines.push(
        `| ${METHODS[method].long} | ${count(f.rate)} | ${(f.rate / base.rate).toFixed(2)} | ${f.cpuUs.toFixed(2)} | ` +
          `${(f.cpuUs / base.cpuUs).toFixed(2)} | ${(f.arrivedShare * 100).toFixed(1)} % | ${count(f.errors)} |`,
      );
    }
    const [fastest, best] = [...figures].reduce((a, b) => (b[1].rate > a[1].rate ? b : a));
    const [cheapest, least] = [...figures].reduce((a, b) => (b[1].cpuUs < a[1].cpuUs ? b : a));
    const verdict = {
      method: fastest,
      ratio: best.rate / base.rate,
      close: [...figures].filter(([m, f]) => m !== fastest && f.highest >= best.rate).map(([m]) => m),
    };
    lines.push(
      '',
      `Fastest: ${METHODS[fastest].short}, ${verdict.ratio.toFixed(2)}× (a)'s SYNs arrived/s${apart(verdict)}; ` +
        `least CPU per SYN: ${METHODS[cheapest].short}, ${(least.cpuUs / base.cpuUs).toFixed(2)}× (a)'s.`,
    );
    for (const [method, f] of figures) {
      if (f.arrivedShare < 0.999 && f.errors === 0) {
        lines.push(
          `${METHODS[method].short} lost ${((1 - f.arrivedShare) * 100).toFixed(1)} % of its SYNs without an error: a raw socket without IP_RECVERR hides the device's ENOBUFS.`,
        );
      }
    }
    console.log(lines.join('\n'));
    sections.push(...lines, '');
    return verdict;
  };

  const plain = report('The veth as created (noqueue, no NAPI): the host answers inside the sender’s syscalls', await measure());
  threadedNapi(sender.device);
  threadedNapi(hostDev, host.name);
  const threaded = report('Both veth ends on threaded NAPI (GRO on, TSO and GSO off): the host answers in kernel threads', await measure());
  const way = (v: Verdict): string => `${METHODS[v.method].long}, ${v.ratio.toFixed(2)}× (a)'s SYNs arrived/s${apart(v)}`;
  sections.push(`Conclusion: the fastest way here is ${way(plain)} on the veth as created, and ${way(threaded)} on threaded NAPI.`, '');
} finally {
  await host.close();
}
const irqTime = kernelConfig('CONFIG_IRQ_TIME_ACCOUNTING') === 'y';
recordSection('syn-send', 'SYN sender: IPPROTO_RAW or AF_PACKET (npm run bench:syn-send)', [
  'bench/syn-send/syn-send.c sends one deep scan of SYNs (65,535: ports 1-65535, source ports from 61000) to a namespace host over its veth, ' +
    `in batches of 64, each way ${RUNS} times, alternating, after one warm-up each; medians. ` +
    'A SYN counts once it arrived: the host has no listener and no firewall, so each SYN with valid checksums earns one RST, counted by its TcpOutRsts. ' +
    `CPU is the sender's getrusage (user + system) over its sending; this kernel ${irqTime ? 'has' : 'has no'} IRQ_TIME_ACCOUNTING, ` +
    `so softirq work done inside the sender's syscalls is ${irqTime ? 'not ' : ''}charged to it. ` +
    `Load average at the start ${loadStart.toFixed(2)} on ${cpus().length} cores shared with other work: wall-clock rates move between runs, CPU per SYN less.`,
  '',
  ...sections,
  'A veth has no qdisc (noqueue), so PACKET_QDISC_BYPASS has no queue to skip here. ' +
    'On threaded NAPI the host’s receive runs in kernel threads on the same cores as the sender and bounds the rate; the ways differ in how they meet ' +
    'a full NAPI ring (256 slots) at the host’s veth end: AF_PACKET’s send calls fail with ENOBUFS and syn-send sends again (the failed calls), ' +
    'a raw socket without IP_RECVERR drops the SYN without an error. The TX ring gets a frame back only once the host has taken its SYN, so it ' +
    'keeps at most 256 in flight and yields the core while it waits for one.',
]);
