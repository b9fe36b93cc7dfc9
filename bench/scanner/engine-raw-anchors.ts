// The raw-packet scanners our SYN engine is compared with on the friendly
// host, each a timed process whose CPU GNU time reads (engine-tools.ts),
// judged against the fixture's truth: nmap -sS, and masscan pointed at the
// host's veth by hand.
import { createSocket } from 'node:dgram';

import { DEEP_PORTS } from '../../src/api/scan-ports.js';
import { assertAllowedTarget } from '../../support/allowed-target.js';
import type { PortState } from '../../support/netns-host.js';
import { parseNmapXml } from '../../support/nmap.js';
import { mismatches } from '../../support/scan-compare.js';
import { runTimedWithCpu, toolPath } from './engine-tools.js';
import type { HostVeth } from './engine-veth.js';
import type { ToolRun, Truth } from './scan-runners.js';

const NMAP_SYN_ARGS = ['-sS', '-p-', '-n', '-Pn', '-T4'] as const;
export const NMAP_SYN_LABEL = `nmap ${NMAP_SYN_ARGS.join(' ')}`;
/**
 * masscan's --rate. On the plain veth masscan 1.3.2 found exactly the 5
 * open and 64,530 closed ports at every rate tried from 100,000 to
 * 10,000,000 packets/s: its one send thread tops out near 100,000/s here,
 * so no rate it reaches loses an answer, and this one asks for more than it
 * can send (a lower rate only makes it slower).
 */
export const MASSCAN_RATE = 1_000_000;
/**
 * masscan's receive thread reads its stop flag only when libpcap hands it
 * a packet, and on an idle veth libpcap waits in poll() until one comes: it
 * would sit there for seconds after the scan (once for minutes), until the
 * kernel's next neighbour probe. On a real network other traffic wakes it
 * at once; here one UDP datagram to the host's discard port every 10 ms
 * does (the host's ICMP answers are rate-limited; masscan ignores both).
 */
const WAKE_EVERY_MS = 10;
const DISCARD_PORT = 9;
const TIMEOUT_MS = 10 * 60_000;

export const MASSCAN_LABEL = `masscan -p1-65535 --rate ${MASSCAN_RATE.toLocaleString('en-US')} --adapter <root end> --adapter-ip <its address> --router-mac <namespace end's MAC> --show closed --wait 0`;

/** `masscan -p1-65535` with its options; --wait 0: a veth's answers are all in before masscan looks (it polls its threads every 250 to 750 ms). */
function masscanArgs(ip: string, veth: HostVeth): string[] {
  return [
    '-p1-65535',
    ip,
    '--rate',
    String(MASSCAN_RATE),
    '--adapter',
    veth.rootIf,
    '--adapter-ip',
    veth.rootIpv4,
    '--router-mac',
    veth.nsMac,
    '--show',
    'closed',
    '--wait',
    '0',
    '-oL',
    '-',
  ];
}

function judged(states: Map<number, PortState>, truth: Truth): Pick<ToolRun, 'wrong' | 'examples'> {
  const wrong = mismatches(states, truth);
  return { wrong: wrong.length, examples: wrong.slice(0, 5) };
}

/** `nmap -sS -p- -n -Pn -T4` of `ip`. */
export async function runNmapSyn(ip: string, truth: Truth): Promise<ToolRun> {
  assertAllowedTarget(ip, 'nmap');
  const { stdout, elapsedMs, cpuMs } = await runTimedWithCpu(toolPath('nmap', 'nmap'), [...NMAP_SYN_ARGS, '-oX', '-', ip], TIMEOUT_MS);
  return { ms: elapsedMs, cpuMs, ...judged(parseNmapXml(stdout), truth), note: '' };
}

/**
 * masscan's scan of `ip` through `veth`. It reports open and closed ports
 * only; a port it does not report got no answer to its one SYN, so it reads
 * as filtered.
 */
export async function runMasscan(ip: string, veth: HostVeth, truth: Truth): Promise<ToolRun> {
  assertAllowedTarget(ip, 'masscan');
  const socket = createSocket('udp4');
  // A wake datagram that fails to go out changes nothing: the next one follows.
  const wake = setInterval(() => socket.send(Buffer.alloc(1), DISCARD_PORT, ip, () => undefined), WAKE_EVERY_MS);
  try {
    const { stdout, elapsedMs, cpuMs } = await runTimedWithCpu(toolPath('masscan', 'masscan'), masscanArgs(ip, veth), TIMEOUT_MS);
    const states = new Map<number, PortState>(DEEP_PORTS.map((port) => [port, 'filtered']));
    for (const line of stdout.split('\n')) {
      const [state, protocol, port] = line.split(' ');
      if ((state === 'open' || state === 'closed') && protocol === 'tcp') states.set(Number(port), state);
    }
    return { ms: elapsedMs, cpuMs, ...judged(states, truth), note: '' };
  } finally {
    clearInterval(wake);
    socket.close();
  }
}
