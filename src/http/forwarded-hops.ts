// The hops a forwarding header reports, read from all of its lines: repeated
// lines are one list (RFC 9110 §5.3), so a proxy that adds a line of its own
// (HAProxy) and one that appends to the last line (nginx) report the same
// hops. A hop that names no usable address is null: `unknown`, an obfuscated
// identifier (RFC 7239 §6.3), or text that is not well-formed. Addresses are
// read by the net/ rules; the walk over the hops is client-address.ts's.
import type { Config } from '../config/config.js';
import { type IpAddress, tryParseIp, tryParseIpAsWritten } from '../net/ip-address.js';

/** The forwarding header a trusted proxy writes, as configured. */
export type ProxyHeader = Config['trustProxyHeader'];

/** One hop's client as its proxy reported it, or null when it is not a usable address. */
export type Hop = IpAddress | null;

/** `[v6]`, `[v6]:port`, `v4` or `v4:port`; the port a number or an RFC 7239 obfuscated one. */
const NODE = /^(?:\[([^\]]+)\]|(\d+\.\d+\.\d+\.\d+))(?::(?:\d{1,5}|_[\w.-]+))?$/;

/** The IPv6 address `text` spells (IPv4-mapped read as IPv4), or null for anything else. */
function ipv6(text: string): Hop {
  return tryParseIpAsWritten(text)?.kind() === 'ipv6' ? tryParseIp(text) : null;
}

/** The address of a node; a bare IPv6 address (no brackets) only where `bareIpv6` says so. */
function nodeAddress(node: string, bareIpv6: boolean): Hop {
  const match = NODE.exec(node);
  if (match === null) return bareIpv6 ? ipv6(node) : null;
  const [, bracketed, v4] = match;
  return bracketed !== undefined ? ipv6(bracketed) : tryParseIp(v4!);
}

const isOws = (char: string | undefined): boolean => char === ' ' || char === '\t';

/** The hops of one X-Forwarded-For line: comma-separated addresses, empty entries ignored. */
function xForwardedForLine(line: string): Hop[] {
  const hops: Hop[] = [];
  for (const entry of line.split(',')) {
    const node = entry.replace(/^[ \t]+|[ \t]+$/g, '');
    if (node !== '') hops.push(nodeAddress(node, true));
  }
  return hops;
}

const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;

/** Reads one Forwarded line (RFC 7239 §4) from left to right; the index is where it stands. */
class ForwardedLine {
  private at = 0;

  constructor(private readonly line: string) {}

  /**
   * Its hops: the `for` of each element, empty elements ignored. An element
   * without `for` or with `for` twice is a null hop; so is everything from
   * the first text that breaks the grammar to the end of the line.
   */
  hops(): Hop[] {
    const hops: Hop[] = [];
    let pairs = new Map<string, string>();
    let repeated = false;
    for (;;) {
      this.skipOws();
      const char = this.line[this.at];
      if (char !== undefined && char !== ',' && char !== ';') {
        const name = this.token()?.toLowerCase();
        if (name === undefined || this.line[this.at] !== '=') return [...hops, null];
        this.at++;
        const value = this.line[this.at] === '"' ? this.quotedString() : this.token();
        if (value === null) return [...hops, null];
        repeated ||= pairs.has(name);
        pairs.set(name, value);
        this.skipOws();
      }
      const next = this.line[this.at];
      if (next === ';') {
        this.at++;
        continue;
      }
      if (next !== undefined && next !== ',') return [...hops, null];
      if (pairs.size > 0) {
        const node = pairs.get('for');
        hops.push(node === undefined || repeated ? null : nodeAddress(node, false));
      }
      if (next === undefined) return hops;
      this.at++;
      pairs = new Map();
      repeated = false;
    }
  }

  private skipOws(): void {
    while (isOws(this.line[this.at])) this.at++;
  }

  private token(): string | null {
    const start = this.at;
    while (this.at < this.line.length && TCHAR.test(this.line[this.at]!)) this.at++;
    return this.at > start ? this.line.slice(start, this.at) : null;
  }

  /** A quoted-string's content, unescaped; null when unterminated or holding a control character. */
  private quotedString(): string | null {
    let text = '';
    for (this.at++; this.at < this.line.length; this.at++) {
      let char = this.line[this.at]!;
      if (char === '"') {
        this.at++;
        return text;
      }
      if (char === '\\') char = this.line[++this.at] ?? '\x00';
      if ((char < ' ' && char !== '\t') || char === '\x7f') return null;
      text += char;
    }
    return null;
  }
}

/** Every hop `lines` (the lines of `header`, in the order received) report, leftmost first. */
export function forwardedHops(header: ProxyHeader, lines: readonly string[]): Hop[] {
  return lines.flatMap((line) => (header === 'forwarded' ? new ForwardedLine(line).hops() : xForwardedForLine(line)));
}
