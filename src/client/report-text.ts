// The text report, for people: the open ports with service and banner,
// then each check and the verdict. Colour only when asked (a TTY without
// NO_COLOR or TERM=dumb).
import type { CheckOutcome } from './check-outcome.js';
import type { Check } from './checks.js';

const MARK: Record<Check['outcome'], { label: string; colour: number }> = {
  pass: { label: 'PASS', colour: 32 },
  fail: { label: 'FAIL', colour: 31 },
  undecided: { label: 'SKIP', colour: 33 },
};

/** The text report of `outcome`, coloured when `colour`. */
export function textReport(outcome: CheckOutcome, colour: boolean): string {
  const paint = (code: number, text: string): string => (colour ? `\x1b[${code}m${text}\x1b[0m` : text);
  const { plan, result, checks, error } = outcome;
  const lines: string[] = [];
  const scanned = result === null ? '' : ` of ${result.ip}`;
  const took = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
  const status = result === null ? 'no result' : `${result.status}${'duration_ms' in result ? ` in ${took(result.duration_ms)}` : ''}`;
  lines.push(`selfscan check: ${plan.scanType} scan${scanned} by ${plan.server.origin}: ${status}`);
  if (result !== null && result.status !== 'failed') {
    lines.push('', result.ports_open.length === 0 ? 'Open ports: none' : 'Open ports:');
    for (const port of result.ports_open) {
      const banner = port.banner === null ? '' : `  ${JSON.stringify(port.banner)}`;
      lines.push(`  ${`${port.port}/tcp`.padEnd(10)}${(port.service ?? '-').padEnd(16)}${banner}`.trimEnd());
    }
  }
  if (checks.length > 0) {
    lines.push('', 'Checks:');
    for (const check of checks) lines.push(`  ${paint(MARK[check.outcome].colour, MARK[check.outcome].label)}  ${check.message}`);
  }
  if (error !== null) lines.push('', `${paint(31, 'Error')}: ${error.message}`);
  const count = (outcome: Check['outcome']): number => checks.filter((check) => check.outcome === outcome).length;
  const [passed, failed, undecided] = [count('pass'), count('fail'), count('undecided')];
  const verdict =
    outcome.verdict === 'error'
      ? paint(31, 'ERROR: could not decide')
      : outcome.verdict === 'fail'
        ? paint(31, `FAIL: ${failed} of ${checks.length} checks failed`)
        : paint(
            32,
            checks.length === 0
              ? 'PASS: nothing was expected'
              : `PASS: ${passed} of ${checks.length} checks passed${undecided > 0 ? `, ${undecided} undecided` : ''}`,
          );
  lines.push('', `Verdict: ${verdict} (exit ${outcome.exitCode})`);
  return `${lines.join('\n')}\n`;
}
