// Which autonomous system a caller belongs to, and the bucket its rate limits
// are counted in: one per AS, so that a network cannot dodge the per-caller
// limits by spreading requests over many of its addresses.
import ipaddr from 'ipaddr.js';

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
  if (ip.includes(':')) return `${ipaddr.IPv6.networkAddressFromCIDR(`${ip}/48`).toString()}/48`;
  return `${ipaddr.IPv4.networkAddressFromCIDR(`${ip}/24`).toString()}/24`;
}
