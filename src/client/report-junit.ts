// The junit report: one testcase per check, so CI systems show each
// expectation and each open port judged by a limit as a test; the sameness
// of regions is one testcase, failing with every port and region that broke
// it. A failure's message is both in the attribute and
// in the body, since CI systems differ in which they show. A run that
// could not decide adds an errored `scan` testcase. A udp scan names its
// ports `53/udp`, and its suite's system-out lists each open UDP port with
// its severity, amplification and evidence.
import type { CheckOutcome } from './check-outcome.js';
import type { Check } from './checks.js';
import { type Protocol, portWord, protocolOf } from './scan-protocol.js';
import { udpAnswers, udpPortLine } from './udp-answers.js';

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd');
}

function testcase(name: string, classname: string, child?: { tag: 'failure' | 'skipped' | 'error'; message: string; type?: string }): string {
  const open = `    <testcase classname="${xml(classname)}" name="${xml(name)}"`;
  if (child === undefined) return `${open}/>`;
  const type = child.type === undefined ? '' : ` type="${xml(child.type)}"`;
  return `${open}>\n      <${child.tag} message="${xml(child.message)}"${type}>${xml(child.message)}</${child.tag}>\n    </testcase>`;
}

function checkName({ rule, port }: Check, protocol: Protocol): string {
  const named = port === undefined ? '' : portWord(port, protocol);
  switch (rule) {
    case 'expect-open':
      return `${named} is open`;
    case 'expect-closed':
      return `${named} is closed or filtered`;
    case 'only-open':
      return port === undefined ? 'no other port is open' : `${named} is not open`;
    case 'max-severity':
      return port === undefined ? 'no open port is worse than the severity limit' : `${named} is within the severity limit`;
    case 'cert-min-days':
      return port === undefined ? 'no certificate is short of days' : `${named} has a certificate with enough days left`;
    case 'max-amplification':
      return port === undefined ? 'no open UDP port amplifies beyond the limit' : `${named} is within the amplification limit`;
    case 'same-everywhere':
      return 'every region sees the same ports';
  }
}

/** The checks as testcases: each its own, but the sameness checks folded into one (failed if any failed, else skipped if any was undecided). */
function asTestcases(checks: readonly Check[]): Check[] {
  const sameness = checks.filter((check) => check.rule === 'same-everywhere');
  const others = checks.filter((check) => check.rule !== 'same-everywhere');
  if (sameness.length === 0) return others;
  const worst = sameness.find((check) => check.outcome === 'fail') ?? sameness.find((check) => check.outcome === 'undecided') ?? sameness[0]!;
  const message = sameness
    .filter((check) => check.outcome === worst.outcome)
    .map((check) => check.message)
    .join('. '); // a difference's message has semicolons of its own
  return [...others, { ...worst, port: undefined, region: undefined, message }];
}

/** A udp scan's open ports, a line each, as the suite's system-out; nothing for a TCP scan or a result without udp facts. */
function udpSystemOut({ plan, result }: CheckOutcome): string[] {
  const answers = plan.scanType === 'udp' && result !== null ? udpAnswers(result) : null;
  if (answers === null) return [];
  const lines = answers.length === 0 ? ['Open UDP ports: none'] : ['Open UDP ports:', ...answers.map((port) => `  ${udpPortLine(port)}`)];
  return [`    <system-out>${xml(lines.join('\n'))}</system-out>`];
}

/** The junit report of `outcome`. */
export function junitReport(outcome: CheckOutcome): string {
  const { plan, result, error } = outcome;
  const checks = asTestcases(outcome.checks);
  const cases = checks.map((check) =>
    testcase(
      checkName(check, protocolOf(plan.scanType)),
      `selfscan.${check.rule}`,
      check.outcome === 'pass' ? undefined : { tag: check.outcome === 'fail' ? 'failure' : 'skipped', message: check.message, type: check.rule },
    ),
  );
  if (error !== null) cases.push(testcase('scan', 'selfscan.scan', { tag: 'error', message: error.message, type: error.kind }));
  const count = (outcomeOf: Check['outcome']): number => checks.filter((check) => check.outcome === outcomeOf).length;
  const totals = `tests="${cases.length}" failures="${count('fail')}" errors="${error === null ? 0 : 1}" skipped="${count('undecided')}" time="${(outcome.durationMs / 1000).toFixed(3)}"`;
  const name = xml(`selfscan check: ${plan.scanType} scan${result === null ? '' : ` of ${result.ip}`}`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="selfscan check" ${totals}>`,
    `  <testsuite name="${name}" ${totals} timestamp="${outcome.startedAt.toISOString().slice(0, 19)}">`,
    ...cases,
    ...udpSystemOut(outcome),
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
