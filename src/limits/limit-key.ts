// Whom a per-IP limit counts: an IPv4 caller is its address, an IPv6 caller
// its prefix (a /64 by default), because one IPv6 host typically owns a
// whole /64 and could otherwise pick a fresh address for a fresh allowance.
// Only the limits use it: the scan target stays the full address.
import { cidrOf, formatCidr } from '../net/cidr.js';
import { parseIp } from '../net/ip-address.js';

/**
 * The key of the per-IP limits for `ip` (canonical, as the caller address
 * is): `ip` itself for IPv4, else its network of `ipv6PrefixLength` bits,
 * e.g. `2001:db8:1:2::/64`. Throws when `ip` is not an address.
 */
export function perIpLimitKey(ip: string, ipv6PrefixLength: number): string {
  if (!ip.includes(':')) return ip; // canonical IPv4: no parsing on the hot path
  return formatCidr(cidrOf(parseIp(ip), ipv6PrefixLength));
}
