/**
 * The hostile behaviours a netns fixture host can put between a scanner and
 * its ports, as iptables/ip6tables rules and sysctls run inside the host's
 * namespace, and the true state of each port under them.
 *
 * Rates go through the kernel's token buckets, which round them (limit to
 * 10,000 ÷ an integer, hashlimit to 1,000,000 ÷ an integer) and, for
 * hashlimit, refill per jiffy and cap at the burst (at most burst × HZ per
 * second); under iptables-nft, limit is nftables' own nanosecond bucket. So
 * the rate a host really lets through differs from the one asked for (see
 * measureLimiterRate in support/limiter-rate.ts), but the truth of
 * every port does not.
 */

/** An inclusive range of ports. */
export interface PortRange {
  from: number;
  to: number;
}

/** A token bucket: `rate` packets per second, at most `burst` at once. */
export interface Limit {
  rate: number;
  burst: number;
}

/** A port range answered differently to one source address, as a firewall that trusts some networks more than others. */
export interface SourceRule {
  /** The source address (IPv4 or IPv6) the rule applies to. */
  source: string;
  ports: PortRange;
  /** Default `tcp`. */
  protocol?: 'tcp' | 'udp';
  /** `drop`: no answer (filtered); `reset`: closed (REJECT with a TCP reset, or for UDP an ICMP port unreachable). */
  answer: 'drop' | 'reset';
}

export interface HostileOptions {
  /** Drop SYNs to every port without a listener (a host that shows only its services). */
  dropAllButListeners?: boolean;
  /** Drop SYNs above a rate: per source address (hashlimit) or for all sources together (limit). */
  synLimit?: Limit & { scope: 'per-source' | 'global' };
  /** Drop the RSTs the host sends above a rate, as FreeBSD and macOS do at 200/s. */
  rstLimit?: Limit;
  /** Answered by REJECT --reject-with tcp-reset: closed. */
  rejectReset?: PortRange;
  /** Answered by REJECT with ICMP port unreachable: filtered. */
  rejectIcmp?: PortRange;
  /**
   * How often the host may send ICMP errors to one peer, in ms between
   * tokens (net.ipv4.icmp_ratelimit, net.ipv6.icmp.ratelimit). Linux's
   * default, 1000, suppresses most unreachables of a fast scan; 0 sends
   * every one (the global icmp_msgs_per_sec cap is lifted too).
   */
  icmpRatelimitMs?: number;
  /** Rules for single sources, ahead of every other rule: the first that matches a source and port decides. */
  bySource?: SourceRule[];
}

type Family = 4 | 6;

const range = ({ from, to }: PortRange): string => `${from}:${to}`;
const rate = (limit: Limit): string => `${limit.rate}/second`;

/** One iptables argument list per rule, in order, for one address family. */
export function firewallRules(family: Family, options: HostileOptions, dropped: PortRange | null, listenerPorts: readonly number[]): string[][] {
  const rules: string[][] = [];
  const input = (...args: string[]): void => void rules.push(['-A', 'INPUT', '-p', 'tcp', ...args]);
  const output = (...args: string[]): void => void rules.push(['-A', 'OUTPUT', '-p', 'tcp', ...args]);

  // The limiters live in chains of their own, so a packet under the limit
  // RETURNs to the rules after them instead of being accepted at once.
  const limiter = (chain: string, match: string[]): void => {
    rules.push(['-N', chain], ['-A', chain, ...match, '-j', 'RETURN'], ['-A', chain, '-j', 'DROP']);
  };
  for (const rule of options.bySource ?? []) {
    if (rule.source.includes(':') !== (family === 6)) continue;
    const protocol = rule.protocol ?? 'tcp';
    const refusal = protocol === 'tcp' ? 'tcp-reset' : family === 4 ? 'icmp-port-unreachable' : 'icmp6-port-unreachable';
    const verdict = rule.answer === 'drop' ? ['DROP'] : ['REJECT', '--reject-with', refusal];
    rules.push(['-A', 'INPUT', '-p', protocol, '-s', rule.source, '--dport', range(rule.ports), '-j', ...verdict]);
  }
  const syn = options.synLimit;
  if (syn !== undefined) {
    limiter(
      'SYNLIMIT',
      syn.scope === 'per-source'
        ? [
            '-m',
            'hashlimit',
            '--hashlimit-upto',
            rate(syn),
            '--hashlimit-burst',
            String(syn.burst),
            '--hashlimit-mode',
            'srcip',
            '--hashlimit-name',
            `synlimit${family}`,
          ]
        : ['-m', 'limit', '--limit', rate(syn), '--limit-burst', String(syn.burst)],
    );
    input('--syn', '-j', 'SYNLIMIT');
  }
  if (dropped !== null) input('--dport', range(dropped), '-j', 'DROP');
  if (options.rejectReset !== undefined) {
    input('--dport', range(options.rejectReset), '-j', 'REJECT', '--reject-with', 'tcp-reset');
  }
  if (options.rejectIcmp !== undefined) {
    const reply = family === 4 ? 'icmp-port-unreachable' : 'icmp6-port-unreachable';
    input('--dport', range(options.rejectIcmp), '-j', 'REJECT', '--reject-with', reply);
  }
  if (options.dropAllButListeners === true) {
    for (const port of listenerPorts) input('--dport', String(port), '-j', 'RETURN');
    input('--syn', '-j', 'DROP');
  }
  const rst = options.rstLimit;
  if (rst !== undefined) {
    limiter('RSTLIMIT', ['-m', 'limit', '--limit', rate(rst), '--limit-burst', String(rst.burst)]);
    output('--tcp-flags', 'RST', 'RST', '-j', 'RSTLIMIT');
  }
  return rules;
}

/** `sysctl -w` arguments for the host's namespace. */
export function sysctls(options: HostileOptions): string[] {
  const ms = options.icmpRatelimitMs;
  if (ms === undefined) return [];
  const settings = [`net.ipv4.icmp_ratelimit=${ms}`, `net.ipv6.icmp.ratelimit=${ms}`];
  if (ms === 0) settings.push('net.ipv4.icmp_msgs_per_sec=1000000', 'net.ipv4.icmp_msgs_burst=1000000');
  return settings;
}

/** Port ranges the options give a fixed answer; used to keep listeners out of them. */
export function answeredRanges(options: HostileOptions): PortRange[] {
  return [options.rejectReset, options.rejectIcmp].filter((r): r is PortRange => r !== undefined);
}

/** The state a TCP connect scan from `source` (default: an address no source rule names) should report for `port`. */
export function trueState(
  port: number,
  options: HostileOptions,
  dropped: PortRange | null,
  hasListener: (port: number) => boolean,
  source?: string,
): 'open' | 'closed' | 'filtered' {
  const inside = (r: PortRange | null | undefined): boolean => r != null && port >= r.from && port <= r.to;
  // Rule order above: the source rules, the dropped range, the REJECT ranges, then drop-all.
  const sourced = options.bySource?.find((rule) => (rule.protocol ?? 'tcp') === 'tcp' && rule.source === source && inside(rule.ports));
  if (sourced !== undefined) return sourced.answer === 'drop' ? 'filtered' : 'closed';
  if (inside(dropped)) return 'filtered';
  if (inside(options.rejectReset)) return 'closed';
  if (inside(options.rejectIcmp)) return 'filtered';
  if (hasListener(port)) return 'open';
  return options.dropAllButListeners === true ? 'filtered' : 'closed';
}
