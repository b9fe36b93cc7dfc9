// Networks written as CIDRs or bare addresses, read by the same strict address
// rules as ip-address.ts: for trusted proxies, the opt-out list and the /24 or
// /48 rate-limit buckets.
import ipaddr from 'ipaddr.js';

import { type IpAddress, tryParseIpAsWritten } from './ip-address.js';

/** A network: its first address (host bits cleared) and its prefix length. */
export interface Cidr {
  readonly address: IpAddress;
  readonly prefix: number;
}

/** The network of `prefix` bits (0–32 for IPv4, 0–128 for IPv6) that holds `address`. */
export function cidrOf(address: IpAddress, prefix: number): Cidr {
  const bytes = address.toByteArray().map((byte, index) => {
    const keep = Math.min(8, Math.max(0, prefix - index * 8));
    return byte & ((0xff << (8 - keep)) & 0xff);
  });
  return { address: ipaddr.fromByteArray(bytes), prefix };
}

/**
 * Parses `address/prefix` or a bare address (meaning /32 or /128). The
 * address follows tryParseIpAsWritten; the prefix is 1 to 3 decimal digits and
 * at most the address's bits. Host bits under the prefix are cleared; an
 * IPv4-mapped IPv6 network of /96 or longer becomes the IPv4 network it maps.
 * Throws an Error whose message quotes `text` and says what is wrong.
 */
export function parseCidr(text: string): Cidr {
  const slash = text.indexOf('/');
  const address = tryParseIpAsWritten(slash === -1 ? text : text.slice(0, slash));
  const prefixText = slash === -1 ? undefined : text.slice(slash + 1);
  if (address === null || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
    throw new Error(`${JSON.stringify(text)} is not an IP address or CIDR`);
  }
  const bits = address.kind() === 'ipv4' ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefix > bits) throw new Error(`${JSON.stringify(text)}: prefix /${prefix} is longer than ${bits} bits`);
  if (address.kind() === 'ipv6' && prefix >= 96 && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return cidrOf((address as ipaddr.IPv6).toIPv4Address(), prefix - 96);
  }
  return cidrOf(address, prefix);
}

/** `cidr` as `address/prefix` text, e.g. `198.51.100.0/24` or `2001:db8::/32`. */
export function formatCidr(cidr: Cidr): string {
  return `${cidr.address.toString()}/${cidr.prefix}`;
}

/** Whether `address` (as from tryParseIp: IPv4-mapped already IPv4) lies in `cidr`; never across families. */
export function contains(cidr: Cidr, address: IpAddress): boolean {
  return address.kind() === cidr.address.kind() && address.match(cidr.address, cidr.prefix);
}

/** Whether `address` lies in any of `cidrs`. */
export function containedInAny(cidrs: readonly Cidr[], address: IpAddress): boolean {
  return cidrs.some((cidr) => contains(cidr, address));
}
