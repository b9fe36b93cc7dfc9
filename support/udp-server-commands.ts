/**
 * How udp-services-host.ts starts each of Debian's real UDP servers: the
 * configuration it writes for one into that server's own directory and the
 * command lines, bound to the host's IPv4 and IPv6 addresses only. Every
 * server stays in the foreground, logs to stderr if at all (tftpd and
 * rpcbind have only syslog; udp-server-process.ts sends stderr to a file),
 * never reads /etc's configuration of the system's own instance, and keeps
 * its pid file and state in its directory; what a server insists on
 * writing below /run lands in a private /run (udp-server-process.ts).
 * chronyd runs with -x, so it never steers the machine's clock (which no
 * namespace separates).
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A server the fixture can start. */
export type UdpServer = 'dns' | 'ntp' | 'snmp' | 'snmp-private' | 'memcached' | 'chargen' | 'tftp' | 'portmap' | 'coap';

/** The UDP port each server listens on, on both of the host's addresses. */
export const UDP_SERVER_PORTS: Readonly<Record<UdpServer, number>> = {
  dns: 53,
  ntp: 123,
  snmp: 161,
  'snmp-private': 1161,
  memcached: 11211,
  chargen: 19,
  tftp: 69,
  portmap: 111,
  coap: 5683,
};

/** Every server, in the order they start. */
export const UDP_SERVERS = Object.keys(UDP_SERVER_PORTS) as UdpServer[];

/** The only community the `snmp-private` agent answers: a probe with `public` gets nothing. */
export const PRIVATE_SNMP_COMMUNITY = 's3cret';

/** What dnsmasq forwards `example.com` to: fake-upstream-dns.mjs, on the namespace's loopback. */
export const UPSTREAM_DNS_PORT = 5300;

/** The file `tftp` serves from its root directory, and its contents. */
export const TFTP_FILE = { name: 'hello.txt', contents: 'hello from the selfscan udp fixture\n' };

/** One server process: its command line inside the namespace and the environment variables it needs besides the fixture's own. */
export interface ServerCommand {
  argv: string[];
  env?: Record<string, string>;
}

/** Where a server runs: its own directory (already created) and the host's addresses. */
export interface ServerPlace {
  dir: string;
  ipv4: string;
  ipv6: string;
}

/** Writes `service`'s configuration into `place.dir` and returns its processes (one, or one per address family). */
export function serverCommands(service: UdpServer, place: ServerPlace): ServerCommand[] {
  const port = UDP_SERVER_PORTS[service];
  const { dir, ipv4, ipv6 } = place;
  const perFamily = (argv: (address: string, socket: string) => string[]): ServerCommand[] => [
    { argv: argv(ipv4, `${ipv4}:${port}`) },
    { argv: argv(ipv6, `[${ipv6}]:${port}`) },
  ];
  switch (service) {
    case 'dns':
      return [{ argv: dnsmasq(place, port) }];
    case 'ntp':
      return [{ argv: ['/usr/sbin/chronyd', '-d', '-x', '-f', writeConfig(dir, 'chrony.conf', chronyConfig(place, port))] }];
    case 'snmp':
      return [snmpd(place, port, 'public')];
    case 'snmp-private':
      return [snmpd(place, port, PRIVATE_SNMP_COMMUNITY)];
    case 'memcached':
      // -p 0: no TCP; -vv logs each command it reads.
      return [{ argv: ['/usr/bin/memcached', '-u', 'nobody', '-U', String(port), '-p', '0', '-m', '8', '-l', ipv4, '-l', `[${ipv6}]`, '-vv'] }];
    case 'chargen': {
      const lines = [`${ipv4}:chargen dgram udp wait root internal`, `${ipv6}:chargen dgram udp6 wait root internal`];
      // -d: foreground, logging to stderr; -i: no daemon. Its pid file goes to the private /run.
      return [{ argv: ['/usr/sbin/inetd', '-d', '-i', writeConfig(dir, 'inetd.conf', lines)] }];
    }
    case 'tftp': {
      const root = tftpRoot(dir);
      return perFamily((_, socket) => ['/usr/sbin/in.tftpd', '--foreground', '--listen', '--address', socket, '--secure', root]);
    }
    case 'portmap':
      // rpcbind binds UDP to each -h address (and the loopback ones); its socket and lock go to the private /run.
      return [{ argv: ['/usr/sbin/rpcbind', '-f', '-h', ipv4, '-h', ipv6] }];
    case 'coap':
      // -v 7 logs each request it receives.
      return perFamily((address) => ['/usr/bin/coap-server-notls', '-A', address, '-p', String(port), '-v', '7']);
  }
}

function dnsmasq({ ipv4, ipv6 }: ServerPlace, port: number): string[] {
  return [
    '/usr/sbin/dnsmasq',
    '--keep-in-foreground',
    '--conf-file=/dev/null',
    '--no-resolv',
    '--no-hosts',
    '--pid-file',
    `--listen-address=${ipv4},${ipv6}`,
    '--bind-interfaces',
    `--port=${port}`,
    // Queries to the upstream leave from 127.0.0.1, so no random port of the host's addresses is open.
    `--server=/example.com/127.0.0.1#${UPSTREAM_DNS_PORT}@127.0.0.1`,
    '--log-queries=extra',
    '--log-facility=-',
  ];
}

function chronyConfig({ dir, ipv4, ipv6 }: ServerPlace, port: number): string[] {
  return [
    'allow all',
    'local stratum 8',
    `port ${port}`,
    // No command port, and no command socket in /run/chrony either.
    'cmdport 0',
    'bindcmdaddress /',
    `bindaddress ${ipv4}`,
    `bindaddress ${ipv6}`,
    `pidfile ${join(dir, 'chronyd.pid')}`,
  ];
}

function snmpd({ dir, ipv4, ipv6 }: ServerPlace, port: number, community: string): ServerCommand {
  const config = writeConfig(dir, 'snmpd.conf', [`rocommunity ${community} default`, `rocommunity6 ${community} default`, 'sysDescr selfscan udp fixture']);
  const emptyDir = join(dir, 'none');
  mkdirSync(emptyDir);
  return {
    // -C: no configuration but -c's; -I -smux: no TCP port 199; -d: a hex dump of every packet in and out.
    argv: ['/usr/sbin/snmpd', '-f', '-C', '-c', config, '-I', '-smux', '-d', '-Le', '-p', join(dir, 'snmpd.pid'), `udp:${ipv4}:${port},udp6:[${ipv6}]:${port}`],
    // Its persistent state (engine id, counters) in its directory rather than /var/lib/snmp; no MIBs to parse.
    env: { SNMP_PERSISTENT_DIR: join(dir, 'persistent'), MIBS: '', MIBDIRS: emptyDir },
  };
}

/** The directory tftpd serves (--secure chroots into it), readable by `nobody`, whom it serves as. */
function tftpRoot(dir: string): string {
  const root = join(dir, 'root');
  mkdirSync(root, { mode: 0o755 });
  chmodSync(root, 0o755);
  writeFileSync(join(root, TFTP_FILE.name), TFTP_FILE.contents, { mode: 0o644 });
  return root;
}

function writeConfig(dir: string, name: string, lines: readonly string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
