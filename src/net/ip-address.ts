// The one reading of IP address text in the service. Scan targets, proxies,
// X-Forwarded-For entries and opt-out entries all go through it, so they all
// agree on what is an address: strict forms only, never a guess.
import ipaddr from 'ipaddr.js';

/** A parsed IPv4 or IPv6 address (ipaddr.js objects: `kind()`, `toString()`, `toByteArray()`). */
export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

/**
 * `text` with its dotted-quad tail (`::ffff:192.0.2.1`) written as two hex
 * groups; `text` itself when it has no such tail; null when the tail is not a
 * strict dotted quad. ipaddr.js would take legacy tails (`::ffff:010.1.2.3`)
 * and read the deprecated `::a.b.c.d` as IPv4-mapped; as hex groups it reads
 * every tail as RFC 4291 does.
 */
function ipv4TailAsHex(text: string): string | null {
  const colon = text.lastIndexOf(':');
  const tail = text.slice(colon + 1);
  if (colon === -1 || !tail.includes('.')) return text;
  if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return null;
  const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail).octets;
  return `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/**
 * The address `text` spells, IPv4-mapped IPv6 kept as IPv6; null unless it is
 * a dotted-quad IPv4 address (no "10.1", "0x0a.0.0.1" or "010.0.0.1") or an
 * IPv6 address without a zone index (`%eth0`). Blanks are not trimmed.
 */
export function tryParseIpAsWritten(text: string): IpAddress | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (text.includes('%')) return null;
  const v6 = ipv4TailAsHex(text);
  return v6 !== null && ipaddr.IPv6.isValid(v6) ? ipaddr.IPv6.parse(v6) : null;
}

/** Like tryParseIpAsWritten, with an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) read as its IPv4 address. */
export function tryParseIp(text: string): IpAddress | null {
  const address = tryParseIpAsWritten(text);
  if (address?.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

/** Like tryParseIp, but throws an Error saying why for text that is not an address. */
export function parseIp(text: string): IpAddress {
  const address = tryParseIp(text);
  if (address === null) throw new Error(`${JSON.stringify(text)} is not an IP address`);
  return address;
}

/** The canonical text of the address `text` spells (`2001:db8::1`, `192.0.2.1` for `::ffff:c000:201`); throws like parseIp. */
export function normaliseIp(text: string): string {
  return parseIp(text).toString();
}
