// Which addresses are global unicast, i.e. may be scanned or called back. An
// IPv6 form that carries an IPv4 address (6to4, Teredo, NAT64) is judged by
// that IPv4 address, so it cannot smuggle in a private one.
import ipaddr from 'ipaddr.js';

import { contains, parseCidr } from './cidr.js';
import type { IpAddress } from './ip-address.js';

const GLOBAL_UNICAST_V6 = parseCidr('2000::/3');

function word(parts: number[], index: number): number {
  return parts[index] ?? 0;
}

/** The IPv4 address an IPv6 transition form carries, or null for other addresses. */
function embeddedIpv4(address: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const p = address.parts;
  const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  switch (range) {
    case '6to4': // 2002:AABB:CCDD::/48
      return v4(word(p, 1), word(p, 2));
    case 'teredo': // 2001:0:server:flags:port:client, the client address inverted
      return v4(word(p, 6) ^ 0xffff, word(p, 7) ^ 0xffff);
    case 'rfc6052': // 64:ff9b::/96 (well-known NAT64 prefix)
      return word(p, 2) === 0 ? v4(word(p, 6), word(p, 7)) : null;
    default:
      return null;
  }
}

/** Why an IPv4 address is not global unicast, or null. */
function ipv4Reason(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === 'unicast' ? null : range;
}

/** Why an IPv6 address is not global unicast, or null. */
function ipv6Reason(address: ipaddr.IPv6): string | null {
  const range = address.range();
  if (range === '6to4' || range === 'teredo' || range === 'rfc6052') {
    const inner = embeddedIpv4(address, range);
    if (inner === null) return `${range} (local-use NAT64)`;
    const innerRange = inner.range();
    return innerRange === 'unicast' ? null : `${range} carrying ${inner.toString()} (${innerRange})`;
  }
  if (range !== 'unicast') return range;
  return contains(GLOBAL_UNICAST_V6, address) ? null : 'outside global unicast 2000::/3';
}

/**
 * Null when `address` is publicly routable unicast, else why not: the
 * ipaddr.js range name (`private`, `loopback`, `uniqueLocal`, …), `outside
 * global unicast 2000::/3`, or for a transition form what it carries, e.g.
 * `6to4 carrying 10.0.0.1 (private)`.
 */
export function unroutableReason(address: IpAddress): string | null {
  return address.kind() === 'ipv4' ? ipv4Reason(address as ipaddr.IPv4) : ipv6Reason(address as ipaddr.IPv6);
}
