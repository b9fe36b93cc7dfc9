// The verdict: each expectation checked against the scan's result. A port
// is open if the result lists it open, filtered if listed filtered, closed
// otherwise; an incomplete scan decides only what it found open.
import type { Port } from '../api/port.js';
import type { ScanResultFinal } from '../api/scan-result.js';
import type { Expectation } from './check-options.js';

/** The kinds of check, each a SARIF rule and a JUnit class. */
export type Rule = 'expect-open' | 'expect-closed' | 'only-open';

/** A port's state as the check sees it; `unknown` when the scan did not decide it. */
export type SeenState = Port['state'] | 'unknown';

/** One check and how it came out. */
export interface Check {
  rule: Rule;
  /** The port checked; absent for the passing `only-open` check (no other port open). */
  port?: number;
  state: SeenState;
  outcome: 'pass' | 'fail' | 'undecided';
  message: string;
  from: 'flag' | 'policy';
}

/** How a run ended: 0 pass, 1 a check failed, 2 could not decide. */
export type Verdict = 'pass' | 'fail' | 'error';

function stateOf(result: ScanResultFinal, port: number): SeenState {
  if (result.status === 'failed') return 'unknown';
  if (result.ports_open.some((p) => p.port === port)) return 'open';
  if (result.status === 'incomplete') return 'unknown';
  return result.ports_filtered.some((p) => p.port === port) ? 'filtered' : 'closed';
}

/** Each expectation (and --only-open) checked against `result`. */
export function evaluate(result: ScanResultFinal, expectations: readonly Expectation[], onlyOpen: { on: boolean; from: 'flag' | 'policy' }): Check[] {
  const checks: Check[] = expectations.map(({ port, expect, from }) => {
    const state = stateOf(result, port);
    if (state === 'unknown')
      return { rule: `expect-${expect}`, port, state, from, outcome: 'undecided', message: `port ${port}: not decided (${undecidedWhy(result)})` };
    const pass = expect === 'open' ? state === 'open' : state !== 'open';
    const wanted = expect === 'open' ? 'open' : 'closed or filtered';
    return {
      rule: `expect-${expect}`,
      port,
      state,
      from,
      outcome: pass ? 'pass' : 'fail',
      message: `port ${port} is ${state}${pass ? '' : `, expected ${wanted}`}`,
    };
  });
  if (!onlyOpen.on) return checks;
  // A port with an expectation has its own check: only the others count here.
  const unexpected = result.status === 'failed' ? [] : result.ports_open.filter((p) => !expectations.some((e) => e.port === p.port));
  for (const { port, service } of unexpected)
    checks.push({
      rule: 'only-open',
      port,
      state: 'open',
      from: onlyOpen.from,
      outcome: 'fail',
      message: `port ${port}${service ? ` (${service})` : ''} is open but not expected open`,
    });
  if (unexpected.length === 0)
    checks.push(
      result.status === 'complete'
        ? { rule: 'only-open', state: 'closed', from: onlyOpen.from, outcome: 'pass', message: 'no port is open beyond those expected open' }
        : {
            rule: 'only-open',
            state: 'unknown',
            from: onlyOpen.from,
            outcome: 'undecided',
            message: `other open ports: not decided (${undecidedWhy(result)})`,
          },
    );
  return checks;
}

function undecidedWhy(result: ScanResultFinal): string {
  return result.status === 'failed' ? 'the scan failed' : 'the scan was incomplete';
}
