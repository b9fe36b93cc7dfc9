// The hops a forwarding header reports, read from all of its lines: repeated
// lines are one list (RFC 9110 §5.3), so a proxy that adds a line of its own
// (HAProxy) and one that appends to the last line (nginx) report the same
// hops. A hop that names no usable address is null: `unknown`, an obfuscated
// identifier (RFC 7239 §6.3), or text that is not well-formed. Hops come
// from the right and are read only when the walk (client-address.ts) gets to
// them, as a header may be as long as the server takes; addresses are read
// by the net/ rules.
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

/** The entries of one X-Forwarded-For line from the right, blanks around them cut, empty ones skipped. */
function* xForwardedForNodesFromRight(line: string): Generator<string, void, undefined> {
  for (let end = line.length; end >= 0; ) {
    const comma = end === 0 ? -1 : line.lastIndexOf(',', end - 1);
    const entry = line.slice(comma + 1, end).replace(/^[ \t]+|[ \t]+$/g, '');
    if (entry !== '') yield entry;
    end = comma;
  }
}

/** RFC 9110 tchar, by character code (below 128). */
const TCHAR = new Uint8Array(128);
for (const char of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[char.charCodeAt(0)] = 1;

/** HTAB, SP, VCHAR or obs-text: what a quoted-string may hold (RFC 9110 §5.6.4). */
const isText = (code: number): boolean => code === 9 || (code >= 0x20 && code <= 0xff && code !== 0x7f);

/**
 * Reads one Forwarded line (RFC 7239 §4) from left to right by character
 * codes (a line can be as long as the server takes headers); `at` is where
 * the reading stands.
 */
class ForwardedLine {
  private at = 0;

  constructor(private readonly line: string) {}

  /**
   * The `for` node of each element, empty elements dropped. An element
   * without `for` or with a parameter twice is null; so is everything from
   * the first text that breaks the grammar to the end of the line.
   */
  nodes(): (string | null)[] {
    const nodes: (string | null)[] = [];
    const names: string[] = [];
    let node: string | null = null;
    let repeated = false;
    for (;;) {
      this.skipOws();
      const char = this.line[this.at];
      if (char !== undefined && char !== ',' && char !== ';') {
        const name = this.token()?.toLowerCase();
        if (name === undefined || this.line[this.at] !== '=') return [...nodes, null];
        this.at++;
        const value = this.line[this.at] === '"' ? this.quotedString() : this.token();
        if (value === null) return [...nodes, null];
        repeated ||= names.includes(name);
        names.push(name);
        if (name === 'for') node = value;
        this.skipOws();
      }
      const next = this.line[this.at];
      if (next === ';') {
        this.at++;
        continue;
      }
      if (next !== undefined && next !== ',') return [...nodes, null];
      if (names.length > 0) nodes.push(repeated ? null : node);
      if (next === undefined) return nodes;
      this.at++;
      names.length = 0;
      node = null;
      repeated = false;
    }
  }

  private skipOws(): void {
    while (this.line[this.at] === ' ' || this.line[this.at] === '\t') this.at++;
  }

  private token(): string | null {
    const start = this.at;
    while (TCHAR[this.line.charCodeAt(this.at)] === 1) this.at++;
    return this.at > start ? this.line.slice(start, this.at) : null;
  }

  /** A quoted-string's content, quoted pairs unescaped; null when unterminated or holding a control character. */
  private quotedString(): string | null {
    let text = '';
    let from = ++this.at;
    for (;;) {
      const code = this.line.charCodeAt(this.at);
      if (code === 0x22) {
        text += this.line.slice(from, this.at++);
        return text;
      }
      if (code === 0x5c) {
        text += this.line.slice(from, this.at++);
        from = this.at; // the escaped character is taken as it is
        if (!isText(this.line.charCodeAt(this.at))) return null;
      } else if (!isText(code)) return null; // NaN past the end: unterminated
      this.at++;
    }
  }
}

/**
 * The hops `lines` (the lines of `header`, in the order received) report,
 * from the right: the last line's last entry first. A line is read only
 * when the walk reaches it, and an address only when it is asked for.
 */
export function* hopsFromRight(header: ProxyHeader, lines: readonly string[]): Generator<Hop, void, undefined> {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!;
    if (header === 'x-forwarded-for') {
      for (const node of xForwardedForNodesFromRight(line)) yield nodeAddress(node, true);
      continue;
    }
    const nodes = new ForwardedLine(line).nodes();
    for (let j = nodes.length - 1; j >= 0; j--) {
      const node = nodes[j]!;
      yield node === null ? null : nodeAddress(node, false);
    }
  }
}
