// The caller's address, which is also the scan target. It is the socket
// peer, unless the peer is a proxy the operator trusts: then it is the first
// hop, walking the configured forwarding header from the right, that is not
// itself a trusted proxy. The walk never passes a hop it cannot read: what
// lies left of it was written by someone untrusted. Nothing else a client
// sends (other headers, query, body) can change the address.
import { type Cidr, containedInAny, parseCidr } from '../net/cidr.js';
import { type IpAddress, normaliseIp, parseIp } from '../net/ip-address.js';
import { hopsFromRight, type ProxyHeader } from './forwarded-hops.js';
import type { HttpResponse } from './seam.js';

/**
 * The most trusted hops the walk passes, more than any real chain has: a
 * client could otherwise send thousands of trusted addresses, each one read.
 */
export const MAX_TRUSTED_HOPS = 16;

/**
 * Recently seen peers in canonical form, by their address bytes: an IPv4
 * address (also as `::ffff:a.b.c.d`) by its 32-bit value, any other by the
 * bytes as text. Formatting and parsing text costs more than the rest of a GET.
 */
const canonical = new Map<number | string, string>();
/** How many peers each cache of facts about them holds before it starts afresh. */
const PEER_CACHE_SIZE = 4096;

/** Decodes what uWS gives as an ArrayBuffer, without a view on it. */
const latin1 = new TextDecoder('latin1');

/** The socket peer in canonical form; must be read synchronously in the handler. */
export function peerAddress(res: HttpResponse): string {
  const key = addressKey(new Uint8Array(res.getRemoteAddress()));
  let ip = canonical.get(key);
  if (ip === undefined) {
    ip = normaliseIp(latin1.decode(res.getRemoteAddressAsText()));
    if (canonical.size >= PEER_CACHE_SIZE) canonical.clear();
    canonical.set(key, ip);
  }
  return ip;
}

function addressKey(bytes: Uint8Array): number | string {
  if (bytes.length === 4) return ipv4Value(bytes, 0);
  if (bytes.length === 16 && isIpv4Mapped(bytes)) return ipv4Value(bytes, 12);
  return latin1.decode(bytes);
}

function ipv4Value(bytes: Uint8Array, at: number): number {
  return bytes[at]! * 0x1000000 + bytes[at + 1]! * 0x10000 + bytes[at + 2]! * 0x100 + bytes[at + 3]!;
}

/** `::ffff:0:0/96`: ten zero bytes, then two of 0xff. */
function isIpv4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false;
  return bytes[10] === 0xff && bytes[11] === 0xff;
}

export class ClientAddressResolver {
  private readonly trusted: Cidr[];
  /** Recently seen peers, whether each is a trusted proxy: asked on every request. */
  private readonly trustedPeers = new Map<string, boolean>();

  /**
   * `trustProxy`: CIDRs (or bare addresses) of the proxies in front of the
   * service, as net/cidr parseCidr reads them; throws for one it refuses.
   * `header`: the forwarding header those proxies write; the other is never read.
   */
  constructor(
    trustProxy: readonly string[],
    readonly header: ProxyHeader,
  ) {
    this.trusted = trustProxy.map(parseCidr);
  }

  private isTrusted(address: IpAddress): boolean {
    return containedInAny(this.trusted, address);
  }

  /** Whether `peer` (canonical, as peerAddress gives it) is a trusted proxy: only then is `header` read. */
  isTrustedProxy(peer: string): boolean {
    if (this.trusted.length === 0) return false;
    let trusted = this.trustedPeers.get(peer);
    if (trusted === undefined) {
      trusted = this.isTrusted(parseIp(peer));
      if (this.trustedPeers.size >= PEER_CACHE_SIZE) this.trustedPeers.clear();
      this.trustedPeers.set(peer, trusted);
    }
    return trusted;
  }

  /**
   * The client address for a request from `peer` carrying `lines`, every
   * line of `header` in the order received. Walking the hops from the
   * right, it is the first one that is not a trusted proxy; the leftmost
   * when all are. A hop that names no usable address (malformed, `unknown`,
   * obfuscated), or one past MAX_TRUSTED_HOPS trusted ones, ends the walk
   * at the trusted hop before it: the peer when it is the rightmost.
   */
  resolve(peer: string, lines: readonly string[]): string {
    if (!this.isTrustedProxy(peer)) return peer;
    let client = peer;
    let passed = 0;
    for (const hop of hopsFromRight(this.header, lines)) {
      if (hop === null) return client;
      if (!this.isTrusted(hop)) return hop.toString();
      if (passed === MAX_TRUSTED_HOPS) return client;
      client = hop.toString();
      passed++;
    }
    return client; // every hop is a trusted proxy: the leftmost is the best we know
  }
}
