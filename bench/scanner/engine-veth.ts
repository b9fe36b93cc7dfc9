// The veth under a netns host, as the engines part of the scanner benchmark
// sets it up after support/netns-host.ts has made it: its two ends found by
// asking `ip`, and the two shapes the friendly rows run on.
//
// Plain: a veth runs the receiver's whole path inside the sender's
// transmit call, so the host's kernel work (a SYN in, its RST out) is billed
// to the scanner's send syscalls. Remote-like: GRO on and threaded NAPI on
// both ends, so each end's receive work runs in a kernel thread of its own
// (napi/<dev>), as a real NIC's does, and not in the scanner process.
// Both shapes turn TSO and GSO off: with any offload on the capturing
// device, libpcap sizes its ring for 64 KiB frames, and the ring of
// masscan's capture (immediate mode, 65,536-byte snaplen) then holds only a
// handful of packets and drops most answers. No scan packet needs them.
import { writeFileSync } from 'node:fs';

import { type NetnsHost, requireTools, run } from '../../support/netns-host.js';
import { toolPath } from './engine-tools.js';

export type VethShape = 'plain' | 'remote-like';

/** The two ends of a netns host's veth. */
export interface HostVeth {
  /** The end in the root namespace, the scanners' side. */
  rootIf: string;
  /** That end's own address: the source a raw-packet scanner sends from. */
  rootIpv4: string;
  /** The end inside the host's namespace. */
  nsIf: string;
  /** Its MAC: where a raw-packet scanner addresses its frames (the host is on the link, no router). */
  nsMac: string;
}

interface RouteEntry {
  dev: string;
  prefsrc: string;
}

interface LinkEntry {
  ifname: string;
  address: string;
  link_type: string;
}

/** Finds `host`'s veth: the root end from the route to the host, the namespace end as its one Ethernet link. */
export async function hostVeth(host: NetnsHost): Promise<HostVeth> {
  const { ip } = requireTools();
  const [route] = JSON.parse(await run(ip, ['-j', 'route', 'get', host.ipv4])) as RouteEntry[];
  const links = (JSON.parse(await run(ip, ['-n', host.name, '-j', 'link', 'show'])) as LinkEntry[]).filter((l) => l.link_type === 'ether');
  if (route === undefined || links.length !== 1) throw new Error(`cannot tell the veth of ${host.name} (${host.ipv4})`);
  return { rootIf: route.dev, rootIpv4: route.prefsrc, nsIf: links[0]!.ifname, nsMac: links[0]!.address };
}

/** Shapes the veth of `host` (see the file's header); returns its ends. */
export async function shapeVeth(host: NetnsHost, shape: VethShape): Promise<HostVeth> {
  const veth = await hostVeth(host);
  const ethtool = toolPath('ethtool', 'ethtool');
  const { ip } = requireTools();
  const inNamespace = (args: string[]): Promise<string> => run(ip, ['netns', 'exec', host.name, ...args]);
  const offloads = shape === 'plain' ? ['tso', 'off', 'gso', 'off'] : ['gro', 'on', 'tso', 'off', 'gso', 'off'];
  await run(ethtool, ['-K', veth.rootIf, ...offloads]);
  await inNamespace([ethtool, '-K', veth.nsIf, ...offloads]);
  if (shape === 'remote-like') {
    writeFileSync(`/sys/class/net/${veth.rootIf}/threaded`, '1');
    // `ip netns exec` mounts the namespace's own /sys for the command.
    await inNamespace(['sh', '-c', `echo 1 > /sys/class/net/${veth.nsIf}/threaded`]);
  }
  return veth;
}
