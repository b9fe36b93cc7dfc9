// The hosts the scanner benchmark scans, each a netns fixture with its goal
// for our deep scan and the anchors run beside it: on a veth (issue #13),
// and behind internet-like paths (issue #24: support/netns-path.ts).
import type { LimiterChain } from '../../support/limiter-rate.js';
import type { NetnsHostOptions } from '../../support/netns-host.js';

/** What our scan of a case must achieve, besides identical port states. */
export type CaseGoal =
  /** At most `max` times nmap -sT -p- -T4's median. */
  | { kind: 'nmap-ratio'; max: number }
  /** At most `max` seconds. */
  | { kind: 'seconds'; max: number }
  /**
   * At most `max` times the limiter's floor: `packets` (what must pass the
   * limiter for a complete scan) ÷ the limiter's measured true rate.
   */
  | {
      kind: 'floor';
      max: number;
      chain: LimiterChain;
      packets: number;
      packetsWhy: string;
      /** Added to the floor: the retransmission round a lossy path needs, scaled by its RTT. */
      roundMs?: number;
      roundWhy?: string;
    };

export type Anchor = 'nmap' | 'sweep';

export interface ScannerCase {
  /** Name for --cases. */
  key: string;
  /** One line: the host and its hostile behaviour. */
  title: string;
  host: NetnsHostOptions;
  goal: CaseGoal;
  anchors: Anchor[];
  /** With --quick, run nmap only in the first round (on the hostile hosts it takes 1.5 to several minutes a run). */
  nmapOnceWhenQuick: boolean;
  /** Stop nmap after this long (its ratio then reads "< ours ÷ this"); default never. */
  nmapTimeoutMs?: number;
}

export const SYN_LIMIT = { rate: 5000, burst: 100, scope: 'per-source' } as const;
export const RST_LIMIT = { rate: 2000, burst: 20 } as const;
/** Every SYN dropped but those to four listeners. */
export const DROP_ALL_BUT_FOUR: NetnsHostOptions = { listenerPorts: [22, 25, 80, 8080], dropAllButListeners: true, filtered: null };
/** The internet paths: 1 % random loss each way, jitter a tenth of the round trip. */
const PATH_50 = { rttMs: 50, jitterMs: 5, loss: 0.01 } as const;
const PATH_200 = { rttMs: 200, jitterMs: 20, loss: 0.01 } as const;
const pathTitle = (path: { rttMs: number; jitterMs: number; loss: number }): string =>
  `${path.rttMs} ms ± ${path.jitterMs} ms round trip, ${path.loss * 100} % random loss each way`;

export const CASES: readonly ScannerCase[] = [
  {
    key: 'friendly',
    title: 'friendly host: 64,530 closed, 1,000 filtered (iptables DROP of 20000-20999), 5 open',
    host: {},
    goal: { kind: 'nmap-ratio', max: 0.5 },
    anchors: ['nmap'],
    nmapOnceWhenQuick: false,
  },
  {
    key: 'path-50-closed',
    title: `${pathTitle(PATH_50)}; friendly host: 64,530 closed, 1,000 filtered, 5 open`,
    host: { path: { ...PATH_50 } },
    goal: { kind: 'seconds', max: 8 },
    anchors: ['nmap'],
    nmapOnceWhenQuick: true,
  },
  {
    key: 'path-200-closed',
    title: `${pathTitle(PATH_200)}; friendly host: 64,530 closed, 1,000 filtered, 5 open`,
    host: { path: { ...PATH_200 } },
    goal: { kind: 'seconds', max: 15 },
    anchors: ['nmap'],
    nmapOnceWhenQuick: true,
    // At -T4 nmap needs well over ten minutes a run on this path.
    nmapTimeoutMs: 10 * 60_000,
  },
  {
    key: 'path-50-drop-all-but-four',
    title: `${pathTitle(PATH_50)}; all-but-four-dropped host: 4 open, 65,531 filtered`,
    host: { ...DROP_ALL_BUT_FOUR, path: { ...PATH_50 } },
    goal: { kind: 'seconds', max: 12 },
    anchors: ['nmap'],
    nmapOnceWhenQuick: true,
  },
  {
    key: 'path-50-syn-limited',
    title: `${pathTitle(PATH_50)}; SYN-limited host: SYNs above ${SYN_LIMIT.rate.toLocaleString('en-US')}/s per source dropped (burst ${SYN_LIMIT.burst}); 64,530 closed, 1,000 filtered, 5 open`,
    host: { path: { ...PATH_50 }, synLimit: { ...SYN_LIMIT } },
    goal: {
      kind: 'floor',
      max: 1.5,
      chain: 'SYNLIMIT',
      packets: Math.round(65535 * (1 + PATH_50.loss)),
      packetsWhy: 'every port needs one SYN through the limiter, and the 1 % whose answer the path loses on the way back one more',
      roundMs: 2 * PATH_50.rttMs,
      roundWhy: 'one retransmission round for the lost share, a timeout of about twice the RTT',
    },
    anchors: ['nmap'],
    nmapOnceWhenQuick: true,
    nmapTimeoutMs: 10 * 60_000,
  },
  {
    key: 'drop-all-but-four',
    title: 'all-but-four-dropped host: 4 open (22, 25, 80, 8080), every other SYN dropped (65,531 filtered)',
    host: { ...DROP_ALL_BUT_FOUR },
    goal: { kind: 'seconds', max: 8 },
    anchors: ['nmap', 'sweep'],
    nmapOnceWhenQuick: true,
  },
  {
    key: 'syn-limited',
    title: `SYN-limited host: SYNs above ${SYN_LIMIT.rate.toLocaleString('en-US')}/s per source dropped (iptables hashlimit, burst ${SYN_LIMIT.burst}); 64,530 closed, 1,000 filtered, 5 open`,
    host: { synLimit: { ...SYN_LIMIT } },
    goal: {
      kind: 'floor',
      max: 1.3,
      chain: 'SYNLIMIT',
      packets: 65535,
      packetsWhy: 'every port needs one SYN through the limiter, which sees all SYNs before any other rule',
    },
    anchors: ['nmap'],
    nmapOnceWhenQuick: true,
  },
  {
    key: 'rst-limited',
    title: `RST-limited host: RSTs above ${RST_LIMIT.rate.toLocaleString('en-US')}/s dropped (iptables limit, burst ${RST_LIMIT.burst}, all destinations together); 64,530 closed, 1,000 filtered, 5 open`,
    host: { rstLimit: { ...RST_LIMIT } },
    goal: {
      kind: 'floor',
      max: 1.3,
      chain: 'RSTLIMIT',
      packets: 64530,
      packetsWhy: 'each closed port must get one RST out through the limiter; open and filtered ports send none',
    },
    anchors: ['nmap'],
    nmapOnceWhenQuick: true,
  },
];
