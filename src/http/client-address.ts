// The caller's address, which is also the scan target. It is the socket
// peer, unless the peer is a proxy the operator trusts: then it is the
// rightmost X-Forwarded-For entry that is not itself a trusted proxy.
// Nothing else a client sends (other headers, query, body) can change it.
import { type Cidr, contains, parseCidr } from '../net/cidr.js';
import { type IpAddress, normaliseIp, parseIp, tryParseIp } from '../net/ip-address.js';
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

/** One X-Forwarded-For entry as an address (net/ rules): bare, `v4:port` or `[v6]:port`. */
function parseForwardedEntry(entry: string): IpAddress | null {
  let text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'));
  return tryParseIp(text);
}

export class ClientAddressResolver {
  private readonly trusted: Cidr[];

  /**
   * `trustProxy`: CIDRs (or bare addresses) of the proxies in front of the
   * service, as net/cidr parseCidr reads them; throws for one it refuses.
   */
  constructor(trustProxy: readonly string[]) {
    this.trusted = trustProxy.map(parseCidr);
  }

  /** Whether any proxy is trusted: if not, the client is always the peer. */
  get trustsProxies(): boolean {
    return this.trusted.length > 0;
  }

  private isTrusted(address: IpAddress): boolean {
    return this.trusted.some((range) => contains(range, address));
  }

  /**
   * The client address for a request from `peer` carrying `forwardedFor`
   * (the X-Forwarded-For header, '' when absent). A header that is absent
   * or malformed where it matters leaves the peer as the client.
   */
  resolve(peer: string, forwardedFor: string): string {
    if (this.trusted.length === 0 || forwardedFor === '' || !this.isTrusted(parseIp(peer))) return peer;
    const hops = forwardedFor.split(',');
    let client = peer;
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseForwardedEntry(hops[i]!);
      if (hop === null) return client;
      client = hop.toString();
      if (!this.isTrusted(hop)) return client;
    }
    return client; // every hop is a trusted proxy: the leftmost is the best we know
  }
}
