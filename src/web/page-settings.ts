// What the page needs from the configuration (and, on a cluster's API
// node, which regions have live scanner nodes), and the facts it embeds
// for its script, per caller.
import { FAST_PORTS, SCAN_PROFILES } from '../api/scan-type.js';
import { serviceName } from '../api/service-names.js';
import type { Config } from '../config/config.js';
import { UDP_PROBES } from '../udp/udp-probes.js';
import type { PageData, PaneFacts } from './page-data.js';

export interface PageSettings {
  /** The IPv4-only and IPv6-only origins, when both are configured: one pane each. */
  panes: PaneFacts[];
  /** Every origin a pane or the page's script may call: the CSP's connect-src. */
  connectOrigins: string[];
  limits: PageData['limits'];
  /** The regions with a live scanner node, asked per page (a cluster's API node); absent: the server scans from one place. */
  liveRegions?: () => Promise<string[]>;
}

const limitFacts = ({ max, windowSeconds }: { max: number; windowSeconds: number }) => ({ max, windowSeconds });

export function pageSettings(config: Pick<Config, 'page' | 'limits'>, liveRegions?: () => Promise<string[]>): PageSettings {
  const { ipv4Origin, ipv6Origin } = config.page;
  const panes: PaneFacts[] =
    ipv4Origin !== undefined && ipv6Origin !== undefined
      ? [
          { family: 'IPv4', origin: new URL(ipv4Origin).origin },
          { family: 'IPv6', origin: new URL(ipv6Origin).origin },
        ]
      : [];
  const { edge, deepPerIp, fastPerAsn, deepPerAsn, udpPerIp } = config.limits;
  return {
    panes,
    connectOrigins: panes.map((pane) => pane.origin),
    limits: {
      edge: limitFacts(edge),
      deepPerIp: limitFacts(deepPerIp),
      fastPerAsn: limitFacts(fastPerAsn),
      deepPerAsn: limitFacts(deepPerAsn),
      udpPerIp: limitFacts(udpPerIp),
    },
    liveRegions,
  };
}

/** The origins allowed to read answers cross-origin: the panes' and the page's other origins. */
export function corsOrigins(config: Pick<Config, 'page'>): string[] {
  const { ipv4Origin, ipv6Origin, origins } = config.page;
  return [ipv4Origin, ipv6Origin, ...origins].filter((origin): origin is string => origin !== undefined);
}

const FAST_PORT_FACTS = FAST_PORTS.map((port) => ({ port, service: serviceName(port) }));
const UDP_PORT_FACTS = UDP_PROBES.map(({ port, service }) => ({ port, service }));
const CHUNK_SIZES = { fast: SCAN_PROFILES.fast.chunkSize, deep: SCAN_PROFILES.deep.chunkSize, udp: SCAN_PROFILES.udp.chunkSize };

export function ipFamily(ip: string): 'IPv4' | 'IPv6' {
  return ip.includes(':') ? 'IPv6' : 'IPv4';
}

/** The facts the page's script reads, for a caller at `ip`; `liveRegions`: those with a live scanner node (one region offers no choice). */
export function pageData(settings: PageSettings, ip: string, liveRegions: readonly string[] = []): PageData {
  const panes = settings.panes.length > 0 ? settings.panes : [{ family: ipFamily(ip), origin: '' }];
  return {
    ip,
    family: ipFamily(ip),
    fastPorts: FAST_PORT_FACTS,
    udpPorts: UDP_PORT_FACTS,
    chunkSize: CHUNK_SIZES,
    panes,
    regions: liveRegions.length > 1 ? [...liveRegions].sort() : [],
    limits: settings.limits,
  };
}
