/**
 * Test fixture: the regions of a multi-region cluster as network namespaces
 * on this machine, and one target host they all scan.
 *
 * Each region gets a namespace (`sr-<pid>-<n>`) with a veth to the root
 * namespace and a /30 of its own from 198.19.0.0/16 (the upper half of the
 * RFC 2544 benchmarking range; netns-host.ts hands out the lower half,
 * 198.18.0.0/16, to target hosts): its scanners' source address is the
 * namespace's end. The target is a netns host (createNetnsHost) whose
 * firewall answers some ports differently to some regions' addresses
 * (`bySource` rules). The root namespace forwards between the regions' veths
 * and the target's (ip_forward on while a fixture of any process lives; FORWARD accepts
 * the regions' interfaces), and each side has a route to the other through
 * it. Scanner nodes run inside their region's namespace under
 * `ip netns exec` (RegionNamespace.place) and listen on its address, which
 * the test reaches from the root namespace; Redis is a unix socket, the
 * same from every namespace. IPv4 only. Requires root.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SCAN_PROFILES, type ScanType } from '../src/api/scan-type.js';
import { Ipv4Slots } from './ipv4-slots.js';
import type { PortRange } from './netns-firewall.js';
import { createNetnsHost, isAlive, type NetnsHost, type NetnsHostOptions, type PortState, requireTools, run } from './netns-host.js';
import { type Bottleneck, bottleneckQdisc } from './netns-path.js';
import type { Placement } from './server-process.js';

/** Ports the target answers to one region as it answers no other. */
export interface RegionRule {
  region: string;
  ports: PortRange;
  /** Default `tcp`; `udp` rules change no TCP truth (stateFrom, expected). */
  protocol?: 'tcp' | 'udp';
  /** `drop`: filtered from that region; `reset`: closed from it. */
  answer: 'drop' | 'reset';
}

export interface RegionNamespacesOptions {
  /** Region names, one namespace each. */
  regions: readonly string[];
  /** The target host's listeners, dropped range and hostile behaviour (createNetnsHost). */
  target?: Omit<NetnsHostOptions, 'bySource' | 'viaRoot'>;
  rules?: readonly RegionRule[];
  /**
   * Each region's own path: a `tbf` bottleneck on both ends of its veth, so
   * a region's scan is bound by its path, as regions on machines of their
   * own are, rather than by the cores this machine's regions share.
   */
  bottleneck?: Bottleneck;
}

/** One region's namespace. */
export interface RegionNamespace {
  region: string;
  namespace: string;
  /** The source address of the region's scanners: the namespace's end of its veth. */
  address: string;
  /** Where the region's scanner nodes run (NodeSpec.place of cluster-nodes.ts). */
  place: Placement;
}

/** A port seen differently from the regions, as a result's `differences` lists it. */
export interface ExpectedDifference {
  port: number;
  open: string[];
  filtered: string[];
  closed: string[];
  unknown: string[];
}

/** What a complete multi-region scan of the target should report, by port number. */
export interface ExpectedViews {
  /** Each region's open and filtered ports, in the order of `regions`. */
  vantages: { region: string; open: number[]; filtered: number[] }[];
  /** The union: open from any region; filtered from one and open from none. */
  open: number[];
  filtered: number[];
  differences: ExpectedDifference[];
}

/** Running regions and their target; call {@link RegionNamespaces.close} when done. */
export interface RegionNamespaces {
  regions: RegionNamespace[];
  target: NetnsHost;
  /** The state a scan of the target from `region` should report for `port`. */
  stateFrom(region: string, port: number): PortState;
  /** The target's non-closed ports as seen from `region`, ordered by port. */
  truthFrom(region: string): Map<number, PortState>;
  /** What a complete `scanType` scan from `regions` (in the service's order: sorted) should report. */
  expected(regions: readonly string[], scanType: ScanType): ExpectedViews;
  /** Stops the target and deletes the namespaces, links and rules; safe to call more than once. */
  close(): Promise<void>;
}

const NS_PATTERN = /^sr-(\d+)-(\d+)$/;
const IF_PATTERN = /\bsr(\d+)h(\d+)\b/;
/** One /30 of 198.19.0.0/16 per region. */
const slots = new Ipv4Slots([198, 19], 'region namespaces');
const SLOTS_PER_PID = 8;
const FORWARDING = '/proc/sys/net/ipv4/ip_forward';
/**
 * What ip_forward was before any process's fixture turned it on: written by
 * the first, read back by whichever closes last (when no live process has
 * a region namespace left), so fixtures of several processes at once never
 * turn it off under each other.
 */
const FORWARDING_BEFORE = join(tmpdir(), 'selfscan-region-namespaces.ip_forward');

interface RegionResources {
  namespace: string;
  hostIf: string;
  slot: number;
  /** FORWARD rules added for it, as `-I` argument lists. */
  forward: string[][];
}

let regionCounter = 0;
const openRegions = new Set<RegionResources>();
let exitHookInstalled = false;
/** Fixtures alive in this process. */
let fixturesOpen = 0;

/**
 * Creates one namespace per region and a target host in its own namespace
 * whose firewall applies `rules` to the regions' addresses. Throws if not
 * running as root or if a tool is missing; undoes what it did on failure.
 */
export async function createRegionNamespaces(options: RegionNamespacesOptions): Promise<RegionNamespaces> {
  const tools = requireTools();
  const { ip, iptables } = tools;
  if (new Set(options.regions).size !== options.regions.length) throw new Error('region namespaces: region names repeat');
  for (const rule of options.rules ?? []) {
    if (!options.regions.includes(rule.region))
      throw new Error(`region namespaces: a rule names region ${rule.region}, not one of ${options.regions.join(', ')}`);
  }
  await removeStale(ip, iptables);

  const created: RegionResources[] = [];
  const regions: RegionNamespace[] = [];
  let target: NetnsHost | null = null;
  fixturesOpen++;
  const teardown = async (): Promise<void> => {
    await target?.close();
    for (const resources of created) await removeRegion(ip, iptables, resources);
    fixturesOpen--;
    if (fixturesOpen === 0) restoreForwarding(ip);
  };
  try {
    enableForwarding();
    const gateways = new Map<string, string>();
    for (const region of options.regions) {
      const n = regionCounter++;
      const { pid } = process;
      const namespace = `sr-${pid}-${n}`;
      const hostIf = `sr${pid}h${n}`;
      const nsIf = `sr${pid}n${n}`;
      if (nsIf.length > 15) throw new Error(`region namespaces: interface name ${nsIf} exceeds 15 characters`);
      const slot = await slots.pick(ip, pid * SLOTS_PER_PID + n);
      const resources: RegionResources = { namespace, hostIf, slot, forward: [] };
      created.push(resources);
      trackForExit(ip, iptables, resources);
      const gateway = slots.ipv4(slot, 1);
      const address = slots.ipv4(slot, 2);
      await run(ip, ['netns', 'add', namespace]);
      await run(ip, ['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf]);
      await run(ip, ['link', 'set', nsIf, 'netns', namespace]);
      await run(ip, ['addr', 'add', `${gateway}/30`, 'dev', hostIf]);
      await run(ip, ['link', 'set', hostIf, 'up']);
      await run(ip, ['-n', namespace, 'addr', 'add', `${address}/30`, 'dev', nsIf]);
      await run(ip, ['-n', namespace, 'link', 'set', nsIf, 'up']);
      await run(ip, ['-n', namespace, 'link', 'set', 'lo', 'up']);
      if (options.bottleneck !== undefined) {
        await run(tools.tc, bottleneckQdisc(hostIf, options.bottleneck));
        await run(ip, ['netns', 'exec', namespace, tools.tc, ...bottleneckQdisc(nsIf, options.bottleneck)]);
      }
      // Accepted whatever the FORWARD chain's policy (a Docker host's is DROP).
      for (const rule of [
        ['FORWARD', '-i', hostIf, '-j', 'ACCEPT'],
        ['FORWARD', '-o', hostIf, '-j', 'ACCEPT'],
      ]) {
        await run(iptables, ['-w', '-I', ...rule]);
        resources.forward.push(rule);
      }
      gateways.set(region, gateway);
      regions.push({ region, namespace, address, place: { prefix: [ip, 'netns', 'exec', namespace], host: address } });
    }
    const addressOf = (region: string): string => regions.find((r) => r.region === region)!.address;
    const bySource = (options.rules ?? []).map(({ region, ports, protocol, answer }) => ({ source: addressOf(region), ports: { ...ports }, protocol, answer }));
    target = await createNetnsHost({ ...options.target, bySource, viaRoot: regions.map((r) => `${r.address}/32`) });
    for (const region of regions) {
      await run(ip, ['-n', region.namespace, 'route', 'add', `${target.ipv4}/32`, 'via', gateways.get(region.region)!]);
    }
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }

  const host = target;
  const sourceOf = (region: string): string => {
    const found = regions.find((r) => r.region === region);
    if (found === undefined) throw new Error(`region namespaces: no region ${region}`);
    return found.address;
  };
  let closing: Promise<void> | null = null;
  return {
    regions,
    target: host,
    stateFrom: (region, port) => host.stateOf(port, sourceOf(region)),
    truthFrom: (region) => host.truth(sourceOf(region)),
    expected: (asked, scanType) => expectedViews(asked, scanType, (region) => host.truth(sourceOf(region))),
    close() {
      closing ??= teardown();
      return closing;
    },
  };
}

function expectedViews(regions: readonly string[], scanType: ScanType, truthFrom: (region: string) => Map<number, PortState>): ExpectedViews {
  const scanned = new Set(SCAN_PROFILES[scanType].ports);
  const truths = regions.map((region) => new Map([...truthFrom(region)].filter(([port]) => scanned.has(port))));
  const having = (truth: Map<number, PortState>, state: PortState): number[] => [...truth].filter(([, s]) => s === state).map(([port]) => port);
  const byPort = (a: number, b: number): number => a - b;
  const open = [...new Set(truths.flatMap((truth) => having(truth, 'open')))].sort(byPort);
  const filtered = [...new Set(truths.flatMap((truth) => having(truth, 'filtered')))].filter((port) => !open.includes(port)).sort(byPort);
  const differences: ExpectedDifference[] = [];
  for (const port of [...open, ...filtered].sort(byPort)) {
    const difference: ExpectedDifference = { port, open: [], filtered: [], closed: [], unknown: [] };
    for (const [i, truth] of truths.entries()) difference[truth.get(port) ?? 'closed'].push(regions[i]!);
    if ([difference.open, difference.filtered, difference.closed].filter((list) => list.length > 0).length > 1) differences.push(difference);
  }
  const vantages = regions.map((region, i) => ({ region, open: having(truths[i]!, 'open'), filtered: having(truths[i]!, 'filtered') }));
  return { vantages, open, filtered, differences };
}

/** Turns forwarding on in the root namespace, remembering how it was unless a fixture already did. */
function enableForwarding(): void {
  const now = readFileSync(FORWARDING, 'utf8').trim();
  if (!existsSync(FORWARDING_BEFORE)) writeFileSync(FORWARDING_BEFORE, now);
  if (now !== '1') writeFileSync(FORWARDING, '1');
}

/** Puts forwarding back as it was before the first fixture, unless a live process still has region namespaces. */
function restoreForwarding(ip: string): void {
  if (!existsSync(FORWARDING_BEFORE)) return;
  const list = execFileSync(ip, ['netns', 'list'], { encoding: 'utf8' });
  const inUse = list.split('\n').some((line) => {
    const match = NS_PATTERN.exec(line.split(' ')[0] ?? '');
    return match !== null && Number(match[1]) !== process.pid && isAlive(Number(match[1]));
  });
  if (inUse) return;
  const before = readFileSync(FORWARDING_BEFORE, 'utf8').trim();
  if (before === '0' || before === '1') writeFileSync(FORWARDING, before);
  rmSync(FORWARDING_BEFORE, { force: true });
}

async function removeRegion(ip: string, iptables: string, resources: RegionResources): Promise<void> {
  for (const rule of resources.forward) await run(iptables, ['-w', '-D', ...rule]).catch(() => undefined);
  resources.forward = [];
  // Deleting the root's end removes its peer at once, even while a process still runs in the namespace.
  await run(ip, ['link', 'del', resources.hostIf]).catch(() => undefined);
  const list = await run(ip, ['netns', 'list']);
  if (list.split('\n').some((line) => line.split(' ')[0] === resources.namespace)) await run(ip, ['netns', 'del', resources.namespace]);
  openRegions.delete(resources);
  slots.release(resources.slot);
}

/** Deletes the namespaces, links and FORWARD rules of fixtures whose process no longer exists. */
async function removeStale(ip: string, iptables: string): Promise<void> {
  const stale = (pid: number): boolean => pid !== process.pid && !isAlive(pid);
  for (const line of (await run(iptables, ['-w', '-S', 'FORWARD'])).split('\n')) {
    const match = IF_PATTERN.exec(line);
    if (match === null || !line.startsWith('-A ') || !stale(Number(match[1]))) continue;
    await run(iptables, ['-w', '-D', ...line.slice(3).split(' ')]).catch(() => undefined);
  }
  for (const line of (await run(ip, ['netns', 'list'])).split('\n')) {
    const name = line.split(' ')[0] ?? '';
    const match = NS_PATTERN.exec(name);
    if (match === null || !stale(Number(match[1]))) continue;
    // Another process may be removing the same namespace at once.
    await run(ip, ['link', 'del', `sr${match[1]}h${match[2]}`]).catch(() => undefined);
    await run(ip, ['netns', 'del', name]).catch(() => undefined);
  }
}

function trackForExit(ip: string, iptables: string, resources: RegionResources): void {
  openRegions.add(resources);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when close() was never reached; only synchronous work is possible here.
  process.on('exit', () => {
    const quietly = (file: string, args: string[]): void => {
      try {
        execFileSync(file, args, { stdio: 'ignore' });
      } catch {
        // best effort: a later run removes stale namespaces and rules
      }
    };
    for (const { namespace, hostIf, forward } of openRegions) {
      for (const rule of forward) quietly(iptables, ['-w', '-D', ...rule]);
      quietly(ip, ['link', 'del', hostIf]);
      quietly(ip, ['netns', 'del', namespace]);
    }
    fixturesOpen = 0;
    try {
      restoreForwarding(ip);
    } catch {
      // best effort: the next fixture to close puts it back
    }
  });
}
