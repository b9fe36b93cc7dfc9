// The bare sender, bench/syn-send/syn-send.c: 65,535 SYNs (ports 1-65535)
// to a namespace host over its veth and nothing else, no answers read. What
// the SYN engine is judged against: bench:syn-send compares its ways of
// sending, bench:scanner's engines part times the engine against it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

import { requireTools } from '../../support/netns-host.js';
import { runTimed } from '../lib/timed-child.js';

const SOURCE = fileURLToPath(new URL('./syn-send.c', import.meta.url));
const BINARY = fileURLToPath(new URL('../../build/bench/syn-send', import.meta.url));

/** syn-send.c's ways of sending. */
export type SendWay = 'raw' | 'packet' | 'packet-bypass' | 'tx-ring';

/** What syn-send prints. */
export interface Sent {
  packets: number;
  /** Its sending, from the first SYN to the last send call's return. */
  seconds: number;
  cpuSeconds: number;
  /** Send calls that failed and were made again. */
  errors: number;
}

/** Compiles syn-send.c when its binary is missing or older than it. */
function binary(): string {
  if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= statSync(SOURCE).mtimeMs) return BINARY;
  mkdirSync(dirname(BINARY), { recursive: true });
  execFileSync('cc', ['-O2', '-Wall', '-Wextra', '-o', BINARY, SOURCE], { stdio: 'pipe' });
  return BINARY;
}

/** One TCP connect to port 9 (closed on every fixture host): the kernel resolves the host's MAC on the way. */
function resolveNeighbour(address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port: 9 });
    socket.once('connect', () => reject(new Error(`port 9 of ${address} is open: the host should have no listener there`)));
    socket.once('error', () => resolve());
  });
}

/** A bare sender pointed at the host at `ipv4`: its route's device, the device's MAC and the host's. */
export interface BareSender {
  /** The root namespace's end of the host's veth. */
  device: string;
  send(way: SendWay): Promise<Sent>;
}

export async function bareSenderTo(ipv4: string): Promise<BareSender> {
  const { ip } = requireTools();
  const ipJson = <T>(...args: string[]): T => JSON.parse(execFileSync(ip, ['-j', ...args], { encoding: 'utf8' })) as T;
  const [route] = ipJson<{ dev: string; prefsrc: string }[]>('route', 'get', ipv4);
  if (route === undefined) throw new Error(`no route to ${ipv4}`);
  await resolveNeighbour(ipv4);
  const [neighbour] = ipJson<{ lladdr?: string }[]>('neigh', 'show', 'to', ipv4, 'dev', route.dev);
  if (neighbour?.lladdr === undefined) throw new Error(`${ipv4} is not in the neighbour table of ${route.dev}`);
  const sourceMac = readFileSync(`/sys/class/net/${route.dev}/address`, 'utf8').trim();
  const args = [route.dev, route.prefsrc, ipv4, sourceMac, neighbour.lladdr];
  const program = binary();
  return {
    device: route.dev,
    send: async (way) => JSON.parse((await runTimed(program, [way, ...args], 30_000)).stdout) as Sent,
  };
}
