// The truth bench/load/load.ts checks every result against: listeners on a few
// callers' addresses give them open ports, and the truth for a caller is
// what /proc/net/tcp says listens on its address (or on every address),
// within the ports its scan type covers.
import { createServer, type Server, type Socket } from 'node:net';

import { FAST_PORTS, type ScanType } from '../../src/api/scan-type.js';
import { listeningPorts } from '../../support/listening-ports.js';

/** Fast-list ports every listening caller opens; deep scans also find a high port of its own. */
export const LISTENER_FAST_PORTS: readonly number[] = [22, 8080, 8443];
const HIGH_PORT_BASE = 40_000;
/** Listeners answer with this first line, so the scanner's banner read ends at once. */
const BANNER = 'SSH-2.0-selfscan-load';

/** The share of callers with listeners on their address (at least MIN_LISTENING of them). */
const LISTENING_SHARE = 0.02;
const MIN_LISTENING = 3;

export interface Target {
  address: string;
  scanType: ScanType;
}

export interface TruthListeners {
  /** Addresses that have listeners, and how many ports each. */
  addresses: Map<string, number>;
  close(): Promise<void>;
}

/** Starts listeners on an evenly spread ~2% of `targets` (the i-th gets high port 40000 + i). */
export async function startTruthListeners(targets: readonly Target[]): Promise<TruthListeners> {
  const count = Math.min(targets.length, Math.max(MIN_LISTENING, Math.ceil(targets.length * LISTENING_SHARE)));
  const stride = targets.length / count;
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  const addresses = new Map<string, number>();
  const close = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  };
  try {
    for (let k = 0; k < count; k++) {
      const index = Math.floor(k * stride);
      const ports = [...LISTENER_FAST_PORTS, HIGH_PORT_BASE + (index % 20_000)];
      const address = targets[index]!.address;
      for (const port of ports) servers.push(await listen(address, port, sockets));
      addresses.set(address, ports.length);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { addresses, close };
}

/**
 * One listener that greets with BANNER and closes. Unlike
 * support/loopback-listeners.ts it reads (and drops) what the peer
 * sends, so a peer's FIN or RST is noticed and the socket goes away, and
 * close() destroys what is left: a closing listener never waits on a peer.
 */
async function listen(address: string, port: number, sockets: Set<Socket>): Promise<Server> {
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
    socket.end(`${BANNER}\r\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: address, port, backlog: 1024 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

const FAST_SET = new Set(FAST_PORTS);

/** The open ports a scan of `target` must report: listeners on its address within its scan type's ports. */
export function truthOf(target: Target): number[] {
  const listening = listeningPorts(target.address);
  return target.scanType === 'fast' ? listening.filter((port) => FAST_SET.has(port)) : listening;
}

/** Each target's truth now, keyed by address and scan type. */
export function snapshotTruth(targets: readonly Target[]): Map<string, number[]> {
  return new Map(targets.map((target) => [keyOf(target), truthOf(target)]));
}

export function keyOf(target: Target): string {
  return `${target.scanType}|${target.address}`;
}

/** What a finished scan result must hold for the check (the ScanResult shape of GET /v1/...). */
interface ResultShape {
  ip?: unknown;
  scan_type?: unknown;
  status?: unknown;
  ports_open?: unknown;
  ports_filtered?: unknown;
}

/** Port numbers of a `ports_open` / `ports_filtered` list, or null if it is not one. */
function portNumbers(list: unknown): number[] | null {
  if (!Array.isArray(list)) return null;
  const ports = list.map((entry) => (entry as { port?: unknown } | null)?.port);
  return ports.every((port): port is number => typeof port === 'number') ? ports.sort((a, b) => a - b) : null;
}

const sameList = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((value, i) => value === b[i]);

/**
 * Why `result` is wrong for `target`, or null when it is exact: it must be
 * `complete`, of the caller's own address and scan type, with no filtered
 * port, and its open ports must equal the truth (taken before the run or,
 * should something have started or stopped listening meanwhile, after it).
 */
export function wrongness(target: Target, result: unknown, truths: readonly number[][]): string | null {
  const r = (result ?? {}) as ResultShape;
  if (r.status !== 'complete') return `status ${String(r.status)}`;
  if (r.ip !== target.address) return `ip ${String(r.ip)} is not the caller's`;
  if (r.scan_type !== target.scanType) return `scan_type ${String(r.scan_type)}`;
  const open = portNumbers(r.ports_open);
  const filtered = portNumbers(r.ports_filtered);
  if (open === null || filtered === null) return 'ports_open or ports_filtered malformed';
  if (filtered.length > 0) return `${filtered.length} ports filtered (${filtered.slice(0, 5).join(', ')}…)`;
  if (truths.some((truth) => sameList(open, truth))) return null;
  return `open ${open.join(',') || '-'}, truth ${truths[0]?.join(',') || '-'}`;
}
