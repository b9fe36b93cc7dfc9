// The verdict: each expectation and limit checked against the scan's
// result. A port is open if the result lists it open, filtered if listed
// filtered, closed otherwise; an incomplete scan decides only what it found
// open. The limits judge each open port by what the server learned of it
// (its risk, its TLS certificate); a result without that (a server before
// interface 1.1, or with facts off) decides none of them. The amplification
// limit judges each open UDP port by the bytes it answered (its udp facts);
// a result without them decides none. All of these judge a multi-region
// scan's union; the sameness check alone compares its
// regions: each port seen differently fails, and so does each region that
// did not finish (what it did not verify cannot be shown the same).
import type { Port } from '../api/port.js';
import { differenceText, vantageStatusText } from '../api/region-views.js';
import type { ScanResultFinal } from '../api/scan-result.js';
import { type SeverityLevel, severityRank } from '../api/severity-levels.js';
import type { PortDifference } from '../api/vantages.js';
import type { Expectation, Limit } from './check-options.js';
import { type Protocol, portWord } from './scan-protocol.js';
import { udpAnswers } from './udp-answers.js';

/** The kinds of check, each a SARIF rule and a JUnit class. */
export type Rule = 'expect-open' | 'expect-closed' | 'only-open' | 'max-severity' | 'cert-min-days' | 'max-amplification' | 'same-everywhere';

/** A port's state as the check sees it; `unknown` when the scan did not decide it. */
export type SeenState = Port['state'] | 'unknown';

/** One check and how it came out. */
export interface Check {
  rule: Rule;
  /** The port checked; absent for a check of the other ports (`only-open` and the limits when none is left to judge). */
  port?: number;
  /** The region checked: `same-everywhere`, a region that did not finish. */
  region?: string;
  state: SeenState;
  outcome: 'pass' | 'fail' | 'undecided';
  message: string;
  from: 'flag' | 'policy';
  /** How bad the finding is: `max-severity` and `max-amplification`, the port's risk; `cert-min-days`, high when expired, medium when short, else info. */
  severity?: SeverityLevel;
}

/** What a run checks: the expectations, --only-open and the limits on every open port, of the scan's protocol. */
export interface CheckRules {
  protocol: Protocol;
  expectations: readonly Expectation[];
  onlyOpen: { on: boolean; from: 'flag' | 'policy' };
  maxSeverity?: Limit<SeverityLevel>;
  certMinDays?: Limit<number>;
  maxAmplification?: Limit<number>;
  sameEverywhere?: { from: 'flag' | 'policy' };
}

/** How a run ended: 0 pass, 1 a check failed, 2 could not decide. */
export type Verdict = 'pass' | 'fail' | 'error';

type Finished = Extract<ScanResultFinal, { ports_open: Port[] }>;

function stateOf(result: ScanResultFinal, port: number): SeenState {
  if (result.status === 'failed') return 'unknown';
  if (result.ports_open.some((p) => p.port === port)) return 'open';
  if (result.status === 'incomplete') return 'unknown';
  return result.ports_filtered.some((p) => p.port === port) ? 'filtered' : 'closed';
}

/** Whether the result says what the server learned of its open ports (interface 1.1, facts on). */
export function isAssessed(result: ScanResultFinal): result is Finished {
  return result.status !== 'failed' && result.severity !== undefined;
}

/** Each expectation, --only-open and each limit checked against `result`; all undecided without one. */
export function evaluate(result: ScanResultFinal | null, rules: CheckRules): Check[] {
  return [
    ...expectationChecks(result, rules.expectations, rules.protocol),
    ...onlyOpenChecks(result, rules),
    ...severityChecks(result, rules.maxSeverity, rules.protocol),
    ...certificateChecks(result, rules.certMinDays),
    ...amplificationChecks(result, rules.maxAmplification),
    ...samenessChecks(result, rules.sameEverywhere),
  ];
}

function expectationChecks(result: ScanResultFinal | null, expectations: readonly Expectation[], protocol: Protocol): Check[] {
  return expectations.map(({ port, expect, from }) => {
    const state = result === null ? 'unknown' : stateOf(result, port);
    if (state === 'unknown')
      return {
        rule: `expect-${expect}`,
        port,
        state,
        from,
        outcome: 'undecided',
        message: `${portWord(port, protocol)}: not decided (${undecidedWhy(result)})`,
      };
    const pass = expect === 'open' ? state === 'open' : state !== 'open';
    const wanted = expect === 'open' ? 'open' : 'closed or filtered';
    return {
      rule: `expect-${expect}`,
      port,
      state,
      from,
      outcome: pass ? 'pass' : 'fail',
      message: `${portWord(port, protocol)} is ${state}${pass ? '' : `, expected ${wanted}`}`,
    };
  });
}

function onlyOpenChecks(result: ScanResultFinal | null, { expectations, onlyOpen, protocol }: CheckRules): Check[] {
  if (!onlyOpen.on) return [];
  const rule = 'only-open';
  const from = onlyOpen.from;
  if (result === null || result.status === 'failed')
    return [{ rule, state: 'unknown', from, outcome: 'undecided', message: `other open ports: not decided (${undecidedWhy(result)})` }];
  // A port with an expectation has its own check: only the others count here.
  const unexpected = result.ports_open.filter((p) => !expectations.some((e) => e.port === p.port));
  const checks: Check[] = unexpected.map((port) => ({
    rule,
    port: port.port,
    state: 'open',
    from,
    outcome: 'fail',
    message: `${portName(port, protocol)} is open but not expected open`,
  }));
  if (unexpected.length === 0) checks.push(rest(result, rule, from, 'no port is open beyond those expected open', 'other open ports'));
  return checks;
}

function severityChecks(result: ScanResultFinal | null, limit: Limit<SeverityLevel> | undefined, protocol: Protocol): Check[] {
  if (limit === undefined) return [];
  const rule = 'max-severity';
  const { value: max, from } = limit;
  if (result === null || !isAssessed(result)) return [unjudged(result, rule, from, 'severities', 'facts')];
  const checks = result.ports_open.map((port): Check => {
    if (port.risk === undefined)
      return {
        rule,
        port: port.port,
        state: 'open',
        from,
        outcome: 'undecided',
        message: `${portName(port, protocol)}: not decided (the server gave it no severity)`,
      };
    const { severity, why } = port.risk;
    const worse = severityRank(severity) > severityRank(max);
    return {
      rule,
      port: port.port,
      state: 'open',
      from,
      severity,
      outcome: worse ? 'fail' : 'pass',
      message: worse ? `${portName(port, protocol)} is ${severity}, worse than ${max}: ${why}` : `${portName(port, protocol)} is ${severity}, within ${max}`,
    };
  });
  return finishLimit(result, checks, rule, from, `no open port is worse than ${max}`);
}

function certificateChecks(result: ScanResultFinal | null, limit: Limit<number> | undefined): Check[] {
  if (limit === undefined) return [];
  const rule = 'cert-min-days';
  const { value: min, from } = limit;
  if (result === null || !isAssessed(result)) return [unjudged(result, rule, from, 'certificates', 'facts')];
  const checks = result.ports_open.flatMap((port): Check[] => {
    const tls = port.facts?.tls;
    if (tls === undefined) return [];
    const short = tls.days_left < min;
    return [
      {
        rule,
        port: port.port,
        state: 'open',
        from,
        severity: tls.days_left < 0 ? 'high' : short ? 'medium' : 'info',
        outcome: short ? 'fail' : 'pass',
        message: `${portName(port, 'tcp')}: its certificate ${daysLeftText(tls.days_left)}${short ? `, fewer than ${min} days` : ''}`,
      },
    ];
  });
  return finishLimit(result, checks, rule, from, `no open port serves a certificate with fewer than ${min} days left`);
}

function amplificationChecks(result: ScanResultFinal | null, limit: Limit<number> | undefined): Check[] {
  if (limit === undefined) return [];
  const rule = 'max-amplification';
  const { value: max, from } = limit;
  const answers = result === null ? null : udpAnswers(result);
  if (result === null || result.status === 'failed' || answers === null) return [unjudged(result, rule, from, 'amplification', 'udp facts')];
  const checks = answers.map((port): Check => {
    const { amplification, evidence } = port.facts.udp;
    const over = amplification > max;
    const answered = `${portName(port, 'udp')} answered ${amplification}× the bytes it was sent`;
    return {
      rule,
      port: port.port,
      state: 'open',
      from,
      severity: port.risk?.severity,
      outcome: over ? 'fail' : 'pass',
      message: over ? `${answered}, more than ${max}×: ${evidence.join('; ') || 'answers not recognised'}` : `${answered}, within ${max}×`,
    };
  });
  return finishLimit(result, checks, rule, from, `no open UDP port answers more than ${max}× the bytes it is sent`);
}

function samenessChecks(result: ScanResultFinal | null, asked: CheckRules['sameEverywhere']): Check[] {
  if (asked === undefined) return [];
  const rule = 'same-everywhere';
  const { from } = asked;
  if (result === null || result.vantages === undefined) {
    const why = result === null ? 'no scan result' : 'the server sent no view of each region';
    return [{ rule, state: 'unknown', from, outcome: 'undecided', message: `sameness across regions: not decided (${why})` }];
  }
  const unfinished = result.vantages
    .filter((vantage) => vantage.status !== 'complete')
    .map(
      (vantage): Check => ({
        rule,
        region: vantage.region,
        state: 'unknown',
        from,
        outcome: 'fail',
        message: `region ${vantage.region} ${vantage.status === 'failed' ? '' : 'is '}${vantageStatusText(vantage)}: what it did not verify cannot be shown the same as elsewhere`,
      }),
    );
  const differing = (result.differences ?? []).map(
    (difference): Check => ({ rule, port: difference.port, state: unionState(difference), from, outcome: 'fail', message: differenceText(difference) }),
  );
  if (unfinished.length > 0 || differing.length > 0) return [...differing, ...unfinished];
  return [
    {
      rule,
      state: 'closed',
      from,
      outcome: 'pass',
      message: `every region (${result.vantages.map((vantage) => vantage.region).join(', ')}) sees the same ports`,
    },
  ];
}

/** A differing port's state in the union: open if any region reached it, else filtered if one got no answer. */
function unionState(difference: PortDifference): SeenState {
  return difference.open.length > 0 ? 'open' : difference.filtered.length > 0 ? 'filtered' : 'closed';
}

/** How long a certificate has: `expires in 3 days`, `expires today`, `expired 2 days ago`. */
export function daysLeftText(daysLeft: number): string {
  if (daysLeft < 0) return `expired ${-daysLeft} ${-daysLeft === 1 ? 'day' : 'days'} ago`;
  return daysLeft === 0 ? 'expires today' : `expires in ${daysLeft} ${daysLeft === 1 ? 'day' : 'days'}`;
}

/** A limit's port checks, and one for the ports it could not judge: a pass when the scan saw every port and none was judged, undecided when incomplete and none failed. */
function finishLimit(result: Finished, checks: Check[], rule: Rule, from: 'flag' | 'policy', clean: string): Check[] {
  const failed = checks.some((check) => check.outcome === 'fail');
  if (result.status === 'incomplete' && !failed) return [...checks, rest(result, rule, from, clean, 'ports the scan did not reach')];
  if (checks.length === 0) return [rest(result, rule, from, clean, 'other ports')];
  return checks;
}

/** The check of the ports no other check covers: passes on a complete scan, undecided on an incomplete one. */
function rest(result: Finished, rule: Rule, from: 'flag' | 'policy', clean: string, others: string): Check {
  return result.status === 'complete'
    ? { rule, state: 'closed', from, outcome: 'pass', message: clean }
    : { rule, state: 'unknown', from, outcome: 'undecided', message: `${others}: not decided (${undecidedWhy(result)})` };
}

/** A limit's one check when the result cannot be judged: no result, a failed scan, or no `facts` (`udp facts`) about open ports. */
function unjudged(result: ScanResultFinal | null, rule: Rule, from: 'flag' | 'policy', what: string, facts: string): Check {
  const why = result === null || result.status === 'failed' ? undecidedWhy(result) : `the server reported no ${facts} about open ports`;
  return { rule, state: 'unknown', from, outcome: 'undecided', message: `${what}: not decided (${why})` };
}

function portName(port: Port, protocol: Protocol): string {
  return `${portWord(port.port, protocol)}${port.service ? ` (${port.service})` : ''}`;
}

function undecidedWhy(result: ScanResultFinal | null): string {
  if (result === null) return 'no scan result';
  return result.status === 'failed' ? 'the scan failed' : 'the scan was incomplete';
}
