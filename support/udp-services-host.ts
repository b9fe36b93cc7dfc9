/**
 * Test fixture of the udp scan: a disposable "remote host" running
 * Debian's real UDP servers, for the scan's tests and benchmark. It is a
 * netns-host.ts host (its own namespace, IPv4 /30 and IPv6 /64, an
 * optional internet-like path through a router namespace) without TCP
 * listeners, with the chosen servers (udp-server-commands.ts says how each
 * is started) bound to its IPv4 and IPv6 addresses and some UDP ports
 * dropped silently by iptables/ip6tables (filtered). Every other port is
 * closed: the host answers it with an ICMP port unreachable, at the
 * kernel's rate (icmpRateLimitMs). Each server runs inside the namespace
 * (udp-server-process.ts), logs to a file of the fixture's temporary
 * directory, and is awaited until its sockets are bound; close() kills the
 * servers, deletes the namespace and the directory. Requires root.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { killAndWait } from './child-kill.js';
import { startInNamespace } from './fixture-program.js';
import { installRules, run } from './netns-commands.js';
import { createNetnsHost, type NetnsHost, requireTools } from './netns-host.js';
import type { PathOptions, PathStats } from './netns-path.js';
import { serverCommands, UDP_SERVER_PORTS, UDP_SERVERS, type UdpServer, UPSTREAM_DNS_PORT } from './udp-server-commands.js';
import { startServer, waitForUdpSockets } from './udp-server-process.js';

export { PRIVATE_SNMP_COMMUNITY, TFTP_FILE, UDP_SERVERS, type UdpServer } from './udp-server-commands.js';

const UPSTREAM_SCRIPT = fileURLToPath(new URL('./fake-upstream-dns.mjs', import.meta.url));

/** Options for {@link createUdpServicesHost}. */
export interface UdpServicesHostOptions {
  /** The servers to start; default all of them (UDP_SERVERS). */
  services?: readonly UdpServer[];
  /** UDP ports whose datagrams the host drops without a word (IPv4 and IPv6): filtered. Default none. */
  dropped?: readonly number[];
  /**
   * The host's net.ipv4.icmp_ratelimit and net.ipv6.icmp.ratelimit, in ms
   * between ICMP errors to one peer (0 also lifts the global cap); default
   * the kernel's (1000 and 100 in a new namespace, bursts of 6).
   */
  icmpRateLimitMs?: number;
  /** An internet-like path between the root namespace and the host (netns-path.ts); default none. */
  path?: PathOptions;
  /** Extra addresses of the root namespace's end that reach the host, per family (NetnsHostOptions.scannerAddresses); default 0. */
  scannerAddresses?: number;
}

/** A running host; call {@link UdpServicesHost.close} when done. */
export interface UdpServicesHost {
  /** The host's network namespace. */
  name: string;
  ipv4: string;
  ipv6: string;
  /** The root namespace's extra addresses toward the host (options.scannerAddresses of each family). */
  scannerAddresses: { ipv4: string[]; ipv6: string[] };
  /** Datagrams the host has received from each of `sources` (its firewall's counters). */
  datagramsFrom(sources: readonly string[]): Promise<Map<string, number>>;
  /** The UDP port of each server started, on both addresses. */
  ports: ReadonlyMap<UdpServer, number>;
  /**
   * What `service`'s server has logged so far, stdout and stderr: dnsmasq
   * logs each query, snmpd, memcached and coap each request; tftpd and rpcbind nothing.
   */
  log(service: UdpServer): string;
  /** The path emulator's counters so far; null when the host has no path. */
  pathStats(): Promise<PathStats | null>;
  /** Kills the servers and whatever they forked, deletes the namespace and the temporary directory; safe to call more than once. */
  close(): Promise<void>;
}

/** Creates the host, starts its servers and resolves once every one of them listens. */
export async function createUdpServicesHost(options: UdpServicesHostOptions = {}): Promise<UdpServicesHost> {
  const services = [...new Set(options.services ?? UDP_SERVERS)];
  const dropped = [...(options.dropped ?? [])];
  checkDropped(dropped, services);
  const tools = requireTools();
  const dir = mkdtempSync(join(tmpdir(), 'selfscan-udp-services-'));
  const children: ChildProcess[] = [];
  let host: NetnsHost | null = null;

  const teardown = async (): Promise<void> => {
    await Promise.all(children.map(killAndWait));
    if (host !== null) {
      await killLeftovers(tools.ip, host.name);
      await host.close();
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    host = await createNetnsHost({
      listenerPorts: [],
      filtered: null,
      path: options.path,
      icmpRatelimitMs: options.icmpRateLimitMs,
      scannerAddresses: options.scannerAddresses,
    });
    const { name, ipv4, ipv6 } = host;
    const scanners = host.scannerAddresses!;
    await installRules(tools, name, (family) => [
      // A rule with no target only counts: the datagrams from each extra scanner address.
      ...(family === 4 ? scanners.ipv4 : scanners.ipv6).map((source) => ['-I', 'INPUT', '-p', 'udp', '-s', source]),
      ...dropped.map((port) => ['-A', 'INPUT', '-p', 'udp', '--dport', String(port), '-j', 'DROP']),
    ]);
    if (services.includes('dns')) {
      children.push(await startInNamespace(tools.ip, name, [process.execPath, UPSTREAM_SCRIPT, String(UPSTREAM_DNS_PORT)], `upstream DNS in ${name}`));
    }
    await Promise.all(
      services.map((service) => {
        const serviceDir = join(dir, service);
        const runDir = join(serviceDir, 'run');
        mkdirSync(runDir, { recursive: true });
        const started = serverCommands(service, { dir: serviceDir, ipv4, ipv6 }).map((command) =>
          startServer(tools.ip, name, command, runDir, logFile(dir, service)),
        );
        children.push(...started);
        const port = UDP_SERVER_PORTS[service];
        return waitForUdpSockets(tools.ip, name, [`${ipv4}:${port}`, `[${ipv6}]:${port}`], started, logFile(dir, service));
      }),
    );
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }

  const running = host;
  let closing: Promise<void> | null = null;
  return {
    name: running.name,
    ipv4: running.ipv4,
    ipv6: running.ipv6,
    scannerAddresses: running.scannerAddresses!,
    datagramsFrom: (sources) => datagramsFrom(tools, running.name, sources),
    ports: new Map(services.map((service) => [service, UDP_SERVER_PORTS[service]])),
    log: (service) => (services.includes(service) ? readFileSync(logFile(dir, service), 'utf8') : ''),
    pathStats: () => running.pathStats(),
    close() {
      closing ??= teardown();
      return closing;
    },
  };
}

/** The packet counters of the counting rules for `sources` (UdpServicesHost.datagramsFrom). */
async function datagramsFrom(
  tools: { ip: string; iptables: string; ip6tables: string },
  namespace: string,
  sources: readonly string[],
): Promise<Map<string, number>> {
  const rules = await Promise.all(
    [tools.iptables, tools.ip6tables].map((iptables) => run(tools.ip, ['netns', 'exec', namespace, iptables, '-w', '-S', 'INPUT', '-v'])),
  );
  const lines = rules.join('\n').split('\n');
  const counts = new Map<string, number>();
  for (const source of sources) {
    // `-A INPUT -s 198.18.0.8/32 -p udp -c 12 480`
    const line = lines.find((rule) => rule.includes(` -s ${source}/`) && !rule.includes(' -j '));
    const packets = line === undefined ? undefined : /-c (\d+) /.exec(line)?.[1];
    if (packets === undefined) throw new Error(`udp services host: no counting rule for ${source}`);
    counts.set(source, Number(packets));
  }
  return counts;
}

function logFile(dir: string, service: UdpServer): string {
  return join(dir, service, `${service}.log`);
}

function checkDropped(dropped: readonly number[], services: readonly UdpServer[]): void {
  for (const port of dropped) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError(`udp services host: invalid dropped port ${port}`);
    const clash = services.find((service) => UDP_SERVER_PORTS[service] === port);
    if (clash !== undefined) throw new Error(`udp services host: dropped port ${port} is ${clash}'s`);
  }
}

/** SIGKILLs what is still running in the namespace once the servers are gone: what they forked (a tftpd transfer, say). */
async function killLeftovers(ip: string, namespace: string): Promise<void> {
  const pids = (await run(ip, ['netns', 'pids', namespace]).catch(() => '')).split('\n').filter((line) => line !== '');
  for (const pid of pids.map(Number)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}
