// The text report, for people: the open ports with service and banner
// (and, from a server of interface 1.1, each one's severity, why, what to
// do and its certificate's days; the scan's highest severity; what changed
// since the last scan; from a multi-region scan, each region's status and
// open ports and the ports seen differently; from a udp scan, each open
// UDP port's amplification and evidence), then each check and the
// verdict. Colour only when asked (a TTY without
// NO_COLOR or TERM=dumb).
import type { Port } from '../api/port.js';
import { differenceText, vantageStatusText } from '../api/region-views.js';
import type { ScanChanges } from '../api/scan-changes.js';
import type { ScanResultFinal } from '../api/scan-result.js';
import type { CheckOutcome } from './check-outcome.js';
import { type Check, daysLeftText } from './checks.js';
import { type Protocol, protocolOf } from './scan-protocol.js';
import { amplificationText } from './udp-answers.js';

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
  const scanned = result === null ? '' : ` of ${result.ip}${result.regions === undefined ? '' : ` from ${result.regions.join(', ')}`}`;
  const took = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`);
  const status = result === null ? 'no result' : `${result.status}${'duration_ms' in result ? ` in ${took(result.duration_ms)}` : ''}`;
  lines.push(`selfscan check: ${plan.scanType} scan${scanned} by ${plan.server.origin}: ${status}`);
  if (result !== null && result.status !== 'failed') {
    if (result.severity !== undefined) lines.push(`Highest severity: ${result.severity ?? 'none (no open port)'}`);
    lines.push('', result.ports_open.length === 0 ? 'Open ports: none' : 'Open ports:');
    for (const port of result.ports_open) lines.push(...portLines(port, protocolOf(plan.scanType)));
    if (result.changes !== undefined) lines.push('', changesLine(result.changes));
  }
  if (result !== null) lines.push(...regionLines(result, took));
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

const INDENT = ' '.repeat(12);

/** A port's line, then its severity, why and fix, its certificate's days, and what it answered the udp probe, when the server said. */
function portLines(port: Port, protocol: Protocol): string[] {
  const udp = port.facts?.udp;
  // A UDP port's banner is its first evidence, listed below with the rest.
  const banner = port.banner === null || udp !== undefined ? '' : `  ${JSON.stringify(port.banner)}`;
  const lines = [`  ${`${port.port}/${protocol}`.padEnd(10)}${(port.service ?? '-').padEnd(16)}${banner}`.trimEnd()];
  if (port.risk !== undefined) lines.push(`${INDENT}${port.risk.severity}: ${port.risk.why}`, `${INDENT}fix: ${port.risk.fix}`);
  const tls = port.facts?.tls;
  if (tls !== undefined) lines.push(`${INDENT}certificate: ${daysLeftText(tls.days_left)} (${new Date(tls.not_after * 1000).toISOString().slice(0, 10)})`);
  if (udp !== undefined)
    lines.push(`${INDENT}amplification: ${amplificationText(udp)}`, ...udp.evidence.map((evidence) => `${INDENT}evidence: ${JSON.stringify(evidence)}`));
  return lines;
}

/** Each region's status and open ports, then the ports seen differently; nothing for a scan from one place. */
function regionLines(result: ScanResultFinal, took: (ms: number) => string): string[] {
  if (result.vantages === undefined) return [];
  const width = Math.max(...result.vantages.map((vantage) => vantage.region.length)) + 2;
  const lines = ['', 'Regions:'];
  for (const vantage of result.vantages) {
    const open = vantage.ports_open.length === 0 ? 'none' : vantage.ports_open.map((port) => port.port).join(', ');
    const seen = vantage.status === 'failed' ? '' : ` in ${took(vantage.duration_ms)}; open: ${open}`;
    lines.push(`  ${vantage.region.padEnd(width)}${vantageStatusText(vantage)}${seen}`);
  }
  const differences = result.differences ?? [];
  if (differences.length === 0) lines.push('Differences: none (each region that verified a port saw it the same)');
  else lines.push('Differences:', ...differences.map((difference) => `  ${differenceText(difference)}`));
  return lines;
}

/** What changed since the last scan, in one line. */
function changesLine(changes: ScanChanges | null): string {
  if (changes === null) return 'Changes: none known (the server remembers no earlier scan of this address)';
  const when = `${new Date(changes.since * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const list = (ports: readonly number[]): string => (ports.length === 0 ? 'none' : ports.join(', '));
  const changed = changes.changed.map(
    ({ port, what, severity_before, severity_after }) =>
      `${port} (${what.map((kind) => (kind === 'severity' ? `severity ${severity_before ?? 'none'} to ${severity_after ?? 'none'}` : kind)).join(', ')})`,
  );
  return `Changes since the scan of ${when}: opened ${list(changes.opened)}; closed ${list(changes.closed)}; changed ${changed.length === 0 ? 'none' : changed.join(', ')}`;
}
