// The caller's address, which is also the scan target. It is the socket
// peer, unless the peer is a proxy the operator trusts: then it is the
// rightmost X-Forwarded-For entry that is not itself a trusted proxy.
// Nothing else a client sends (other headers, query, body) can change it.
import ipaddr from 'ipaddr.js';

import { normaliseIp } from '../native/scan-request.js';
import type { HttpResponse } from './uws.js';

/** Recently seen peers, already in canonical form: parsing costs more than the rest of a GET. */
const canonical = new Map<string, string>();
const CANONICAL_CACHE_SIZE = 4096;

/** Decodes the address text uWS gives as an ArrayBuffer, without a view on it. */
const addressText = new TextDecoder('latin1');

/** The socket peer in canonical form; must be read synchronously in the handler. */
export function peerAddress(res: HttpResponse): string {
  const text = addressText.decode(res.getRemoteAddressAsText());
  let ip = canonical.get(text);
  if (ip === undefined) {
    ip = normaliseIp(text);
    if (canonical.size >= CANONICAL_CACHE_SIZE) canonical.clear();
    canonical.set(text, ip);
  }
  return ip;
}

/** One X-Forwarded-For entry as an address: bare, `v4:port` or `[v6]:port`. */
function parseForwardedEntry(entry: string): string | null {
  let text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  try {
    return normaliseIp(text);
  } catch {
    return null;
  }
}

function parseRange(cidr: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (cidr.includes('/')) return ipaddr.parseCIDR(cidr);
  const address = ipaddr.parse(cidr);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

export class ClientAddressResolver {
  private readonly trusted: [ipaddr.IPv4 | ipaddr.IPv6, number][];

  /** `trustProxy`: CIDRs (or bare addresses) of the proxies in front of the service. */
  constructor(trustProxy: readonly string[]) {
    this.trusted = trustProxy.map(parseRange);
  }

  /** Whether any proxy is trusted: if not, the client is always the peer. */
  get trustsProxies(): boolean {
    return this.trusted.length > 0;
  }

  private isTrusted(ip: string): boolean {
    const address = ipaddr.parse(ip);
    return this.trusted.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  }

  /**
   * The client address for a request from `peer` carrying `forwardedFor`
   * (the X-Forwarded-For header, '' when absent). A header that is absent
   * or malformed where it matters leaves the peer as the client.
   */
  resolve(peer: string, forwardedFor: string): string {
    if (this.trusted.length === 0 || forwardedFor === '' || !this.isTrusted(peer)) return peer;
    const hops = forwardedFor.split(',');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseForwardedEntry(hops[i]!);
      if (hop === null) return client;
      client = hop;
      if (!this.isTrusted(hop)) return hop;
    }
    return client; // every hop is a trusted proxy: the leftmost is the best we know
  }
}
