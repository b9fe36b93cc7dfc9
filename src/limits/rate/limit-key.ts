// Whom a per-IP limit counts: an IPv4 caller is its address, an IPv6 caller
// its prefix (a /64 by default), because one IPv6 host typically owns a
// whole /64 and could otherwise pick a fresh address for a fresh allowance.
// Only the limits use it: the scan target stays the full address.
import { cidrOf, formatCidr } from '../../net/cidr.js';
import { parseIp } from '../../net/ip-address.js';

/** Recent IPv6 callers' keys: parsing an IPv6 address costs tens of µs, and the edge limit keys every request. */
const CACHE_SIZE = 4096;

/**
 * The key of the per-IP limits for an address (canonical, as the caller
 * address is): the address itself for IPv4, else its network of
 * `ipv6PrefixLength` bits, e.g. `2001:db8:1:2::/64`. The function throws
 * for text that is not an address.
 */
export function perIpLimitKeys(ipv6PrefixLength: number): (ip: string) => string {
  const cache = new Map<string, string>();
  return (ip) => {
    if (!ip.includes(':')) return ip; // canonical IPv4
    let key = cache.get(ip);
    if (key === undefined) {
      key = formatCidr(cidrOf(parseIp(ip), ipv6PrefixLength));
      if (cache.size >= CACHE_SIZE) cache.clear();
      cache.set(ip, key);
    }
    return key;
  };
}
