// Which autonomous system a caller belongs to, and the bucket its rate limits
// are counted in: one per AS, so that a network cannot dodge the per-caller
// limits by spreading requests over many of its addresses.
import { cidrOf, formatCidr } from '../../net/cidr.js';
import { parseIp } from '../../net/ip-address.js';

/** Maps an address to the autonomous system that announces it. */
export interface AsnLookup {
  /**
   * The AS number of `ip` (a canonical IPv4 or IPv6 string), or null when no
   * range holds it or `ip` is not an address. Synchronous: microseconds.
   */
  asnOf(ip: string): number | null;
  /** Where the data came from, for logs: a file path or `package@version`. */
  readonly source: string;
}

/**
 * The rate-limit bucket of a caller: `AS15169` when its AS is known, else its
 * prefix — `198.51.100.0/24` for IPv4, `2001:db8:1::/48` for IPv6 — the
 * longest prefixes routed on the internet, so one site still shares one bucket.
 * Throws when `ip` is not an IP address.
 */
export function rateLimitBucket(ip: string, asn: number | null): string {
  if (asn !== null) return `AS${asn}`;
  const address = parseIp(ip);
  return formatCidr(cidrOf(address, address.kind() === 'ipv4' ? 24 : 48));
}
