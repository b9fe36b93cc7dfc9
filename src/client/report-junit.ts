// The junit report: one testcase per check, so CI systems show each
// expectation as a test; a failure's message is both in the attribute and
// in the body, since CI systems differ in which they show. A run that
// could not decide adds an errored `scan` testcase.
import type { CheckOutcome } from './check-outcome.js';
import type { Check } from './checks.js';

function xml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`).replace(/[^\t\n\r\x20-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd');
}

function testcase(name: string, classname: string, child?: { tag: 'failure' | 'skipped' | 'error'; message: string; type?: string }): string {
  const open = `    <testcase classname="${xml(classname)}" name="${xml(name)}"`;
  if (child === undefined) return `${open}/>`;
  const type = child.type === undefined ? '' : ` type="${xml(child.type)}"`;
  return `${open}>\n      <${child.tag} message="${xml(child.message)}"${type}>${xml(child.message)}</${child.tag}>\n    </testcase>`;
}

function checkName(check: Check): string {
  if (check.port === undefined) return 'no other port is open';
  return check.rule === 'expect-open'
    ? `port ${check.port} is open`
    : check.rule === 'expect-closed'
      ? `port ${check.port} is closed or filtered`
      : `port ${check.port} is not open`;
}

/** The junit report of `outcome`. */
export function junitReport(outcome: CheckOutcome): string {
  const { plan, result, checks, error } = outcome;
  const cases = checks.map((check) =>
    testcase(
      checkName(check),
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
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
