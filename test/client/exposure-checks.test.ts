// The verdict logic of --max-severity and --cert-min-days, and how every
// report shows their findings and the scan's changes, from hand-made
// result bodies (interface 1.1: facts, risk, severity, changes); the
// flags and policy keys as parsed. check-exposure.test.ts proves the same
// against the real server and real listeners.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import type { ScanResultComplete, ScanResultIncomplete } from '../../src/api/scan-result.js';
import { SECURITY_SEVERITY_SCORE } from '../../src/api/severity-levels.js';
import { type CheckPlan, parseCheckArgs } from '../../src/client/check-options.js';
import { outcomeOf } from '../../src/client/check-outcome.js';
import { jsonReport } from '../../src/client/report-json.js';
import { junitReport } from '../../src/client/report-junit.js';
import { sarifReport } from '../../src/client/report-sarif.js';
import { textReport } from '../../src/client/report-text.js';
import { UsageError } from '../../src/client/usage-error.js';
import { sarifErrors } from '../helpers/sarif-validator.js';
import { parseXml, type XmlElement } from '../helpers/strict-xml.js';
import { tlsFacts } from '../helpers/tls-facts.js';

const work = mkdtempSync(join(tmpdir(), 'selfscan-exposure-checks-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NOW = 1_795_300_000;
const DAY = 86_400;

const redis: Port = {
  port: 6379,
  state: 'open',
  service: 'redis',
  banner: null,
  facts: { access: { service: 'redis', auth_required: false, version: '7.0.15', evidence: 'PING answered PONG' } },
  risk: {
    severity: 'high',
    why: 'Redis on port 6379 answers without credentials: anyone can read its data, and often change it.',
    fix: 'Turn on authentication in Redis and close port 6379 to the internet.',
  },
};
const https = (daysLeft: number): Port => ({
  port: 443,
  state: 'open',
  service: 'https',
  banner: null,
  facts: {
    tls: tlsFacts({ sni: null, not_after: NOW + daysLeft * DAY, days_left: daysLeft, trusted: false, name_matches: null }),
  },
  risk:
    daysLeft < 14
      ? { severity: 'medium', why: `The certificate on port 443 expires in ${daysLeft} day(s).`, fix: 'Renew the certificate on port 443.' }
      : { severity: 'low', why: 'The certificate on port 443 is not from a trusted authority.', fix: 'Use a trusted certificate.' },
});
const ssh: Port = {
  port: 22,
  state: 'open',
  service: 'ssh',
  banner: 'SSH-2.0-OpenSSH_9.2p1',
  facts: { ssh: { protocol: '2.0', software: 'OpenSSH_9.2p1', comment: null } },
  risk: { severity: 'info', why: 'Port 22 is open and answers; nothing known about it is risky.', fix: 'Keep port 22 open only if meant.' },
};

function complete(ports: Port[], extra: Partial<ScanResultComplete> = {}): ScanResultComplete {
  return {
    ip: '127.26.2.1',
    scan_type: 'fast',
    status: 'complete',
    ports_open: ports,
    ports_filtered: [],
    service_banners: {},
    ptr_record: null,
    duration_ms: 800,
    completed_at: NOW,
    expires_at: NOW + DAY,
    severity: ports.length === 0 ? null : 'high',
    changes: {
      since: NOW - 3600,
      opened: [6379],
      closed: [80],
      changed: [{ port: 443, what: ['certificate', 'severity'], severity_before: 'low', severity_after: 'medium' }],
    },
    ...extra,
  };
}

const plan = (...args: string[]): CheckPlan => {
  const parsed = parseCheckArgs(['--server', 'http://127.0.0.1:9', ...args], {});
  if (parsed === 'help') throw new Error('help');
  return parsed;
};

const started = new Date(NOW * 1000);

describe('--max-severity and --cert-min-days as parsed', () => {
  it('takes a level and a whole number of days, from the flags or the policy, the flag winning', () => {
    expect(plan('--max-severity', 'medium', '--cert-min-days', '7')).toMatchObject({
      maxSeverity: { value: 'medium', from: 'flag' },
      certMinDays: { value: 7, from: 'flag' },
    });
    const path = join(work, 'policy.json');
    writeFileSync(path, JSON.stringify({ max_severity: 'low', cert_min_days: 30 }));
    expect(plan('--policy', path)).toMatchObject({ maxSeverity: { value: 'low', from: 'policy' }, certMinDays: { value: 30, from: 'policy' } });
    expect(plan('--policy', path, '--max-severity', 'critical')).toMatchObject({
      maxSeverity: { value: 'critical', from: 'flag' },
      certMinDays: { value: 30, from: 'policy' },
    });
    expect(plan()).toMatchObject({ maxSeverity: undefined, certMinDays: undefined });
  });

  it.each([
    [['--max-severity', 'severe'], /--max-severity must be one of critical, high, medium, low, info, not "severe"/],
    [['--max-severity', 'HIGH'], /--max-severity must be one of/],
    [['--cert-min-days=-1'], /--cert-min-days needs a whole number of days, 0 or more, not "-1"/],
    [['--cert-min-days', '7.5'], /--cert-min-days needs a whole number/],
    [['--cert-min-days', 'soon'], /--cert-min-days needs a whole number/],
  ])('%j is a usage error', (args, message) => {
    expect(() => plan(...args)).toThrow(UsageError);
    expect(() => plan(...args)).toThrow(message);
  });

  it.each([
    [{ max_severity: 'urgent' }, /policy: max_severity must be one of critical, high, medium, low, info/],
    [{ max_severity: 3 }, /policy: max_severity must be a string/],
    [{ cert_min_days: -2 }, /policy: cert_min_days must be a whole number of days, 0 or more/],
    [{ cert_min_days: '7' }, /policy: cert_min_days must be a number/],
  ])('a policy with %j is a usage error', (content, message) => {
    const path = join(work, `bad-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify(content));
    expect(() => plan('--policy', path)).toThrow(message);
  });
});

describe('the verdict', () => {
  it('fails on a port worse than --max-severity and passes the others, each port a check', () => {
    const outcome = outcomeOf(plan('--max-severity', 'medium'), complete([ssh, https(3), redis]), null, started);
    expect(outcome.verdict).toBe('fail');
    expect(outcome.exitCode).toBe(1);
    expect(outcome.checks.map(({ rule, port, outcome, severity }) => [rule, port, outcome, severity])).toEqual([
      ['max-severity', 22, 'pass', 'info'],
      ['max-severity', 443, 'pass', 'medium'],
      ['max-severity', 6379, 'fail', 'high'],
    ]);
    expect(outcome.checks[2]!.message).toBe(`port 6379 (redis) is high, worse than medium: ${redis.risk!.why}`);
    expect(outcome.checks[0]!.message).toBe('port 22 (ssh) is info, within medium');
  });

  it('passes when nothing is worse than the limit (the limit itself is allowed)', () => {
    const outcome = outcomeOf(plan('--max-severity', 'high'), complete([ssh, redis]), null, started);
    expect(outcome.verdict).toBe('pass');
  });

  it('fails on a certificate with fewer than --cert-min-days days left, or expired; a port without TLS is not judged', () => {
    const short = outcomeOf(plan('--cert-min-days', '7'), complete([ssh, https(3)]), null, started);
    expect(short.verdict).toBe('fail');
    expect(short.checks).toEqual([
      {
        rule: 'cert-min-days',
        port: 443,
        state: 'open',
        from: 'flag',
        severity: 'medium',
        outcome: 'fail',
        message: 'port 443 (https): its certificate expires in 3 days, fewer than 7 days',
      },
    ]);
    const expired = outcomeOf(plan('--cert-min-days', '0'), complete([https(-2)]), null, started);
    expect(expired.checks[0]).toMatchObject({
      outcome: 'fail',
      severity: 'high',
      message: 'port 443 (https): its certificate expired 2 days ago, fewer than 0 days',
    });
    const enough = outcomeOf(plan('--cert-min-days', '3'), complete([https(3)]), null, started);
    expect(enough.checks[0]).toMatchObject({ outcome: 'pass', severity: 'info', message: 'port 443 (https): its certificate expires in 3 days' });
  });

  it('a complete scan with nothing to judge passes each limit once', () => {
    const outcome = outcomeOf(plan('--max-severity', 'info', '--cert-min-days', '30'), complete([], { severity: null }), null, started);
    expect(outcome.verdict).toBe('pass');
    expect(outcome.checks.map(({ rule, port, outcome, message }) => [rule, port, outcome, message])).toEqual([
      ['max-severity', undefined, 'pass', 'no open port is worse than info'],
      ['cert-min-days', undefined, 'pass', 'no open port serves a certificate with fewer than 30 days left'],
    ]);
  });

  it('an incomplete scan (with --allow-incomplete) judges what it found and leaves the rest undecided', () => {
    const result: ScanResultIncomplete = { ...complete([ssh]), status: 'incomplete', partial: true, chunks_complete: 2, total_chunks: 4 };
    const outcome = outcomeOf(plan('--max-severity', 'low', '--allow-incomplete'), result, null, started);
    expect(outcome.verdict).toBe('pass');
    expect(outcome.checks.map(({ port, outcome }) => [port, outcome])).toEqual([
      [22, 'pass'],
      [undefined, 'undecided'],
    ]);
    expect(outcome.checks[1]!.message).toBe('ports the scan did not reach: not decided (the scan was incomplete)');
  });

  it('a result without facts (a server before 1.1, or facts off) cannot be judged: exit 2, the checks undecided', () => {
    const old = complete([{ port: 6379, state: 'open', service: 'redis', banner: null }]);
    delete old.severity;
    delete old.changes;
    const outcome = outcomeOf(plan('--max-severity', 'medium', '--cert-min-days', '7', '--expect-open', '6379'), old, null, started);
    expect(outcome.verdict).toBe('error');
    expect(outcome.exitCode).toBe(2);
    expect(outcome.error?.kind).toBe('unassessed');
    expect(outcome.checks.map(({ rule, outcome }) => [rule, outcome])).toEqual([
      ['expect-open', 'pass'],
      ['max-severity', 'undecided'],
      ['cert-min-days', 'undecided'],
    ]);
    // Without a limit, the same result is judged as before.
    expect(outcomeOf(plan('--expect-open', '6379'), old, null, started).verdict).toBe('pass');
  });

  it('without a result every rule asked for is undecided', () => {
    const outcome = outcomeOf(plan('--expect-open', '22', '--only-open', '--max-severity', 'high', '--cert-min-days', '1'), null, null, started);
    expect(outcome.checks.map(({ rule, outcome, message }) => [rule, outcome, message])).toEqual([
      ['expect-open', 'undecided', 'port 22: not decided (no scan result)'],
      ['only-open', 'undecided', 'other open ports: not decided (no scan result)'],
      ['max-severity', 'undecided', 'severities: not decided (no scan result)'],
      ['cert-min-days', 'undecided', 'certificates: not decided (no scan result)'],
    ]);
  });
});

const byName = (element: XmlElement, name: string): XmlElement[] => element.children.filter((child) => child.name === name);

describe('the reports', () => {
  const policyPath = join(work, 'limits.json');
  writeFileSync(policyPath, '{\n  "expect_open": [22],\n  "max_severity": "medium",\n  "cert_min_days": 7\n}\n');
  const outcome = outcomeOf(plan('--policy', policyPath), complete([ssh, https(3), redis]), null, started);

  it('text: the highest severity, each port with its severity, why, fix and certificate, the changes, each check', () => {
    const text = textReport(outcome, false);
    expect(text).toContain('Highest severity: high\n');
    expect(text).toContain(`  6379/tcp  redis\n            high: ${redis.risk!.why}\n            fix: ${redis.risk!.fix}\n`);
    expect(text).toContain('            certificate: expires in 3 days (2026-11-24)\n');
    expect(text).toContain('Changes since the scan of 2026-11-21 21:26 UTC: opened 6379; closed 80; changed 443 (certificate, severity low to medium)');
    expect(text).toContain(`FAIL  port 6379 (redis) is high, worse than medium: ${redis.risk!.why}`);
    expect(text).toContain('FAIL  port 443 (https): its certificate expires in 3 days, fewer than 7 days');
    expect(text).toContain('PASS  port 22 (ssh) is info, within medium');
    expect(text).toContain('Verdict: FAIL: 2 of 5 checks failed (exit 1)');
  });

  it('text: no changes known, and a scan without open ports', () => {
    const text = textReport(outcomeOf(plan(), complete([], { severity: null, changes: null }), null, started), false);
    expect(text).toContain('Highest severity: none (no open port)');
    expect(text).toContain('Changes: none known (the server remembers no earlier scan of this address)');
  });

  it('text: an old result shows neither severity nor changes', () => {
    const old = complete([{ port: 22, state: 'open', service: 'ssh', banner: 'SSH-2.0-x' }]);
    delete old.severity;
    delete old.changes;
    const text = textReport(outcomeOf(plan(), old, null, started), false);
    expect(text).not.toMatch(/severity|Changes/i);
    expect(text).toMatch(/^ {2}22\/tcp +ssh +"SSH-2\.0-x"\n\nVerdict/m);
  });

  it('json: each finding a check with its severity; the result (with its changes) unchanged', () => {
    const json = JSON.parse(jsonReport(outcome)) as { checks: Record<string, unknown>[]; result: ScanResultComplete };
    expect(json.checks.filter((check) => check.rule === 'max-severity' || check.rule === 'cert-min-days')).toEqual([
      { rule: 'max-severity', port: 22, state: 'open', outcome: 'pass', message: 'port 22 (ssh) is info, within medium', from: 'policy', severity: 'info' },
      {
        rule: 'max-severity',
        port: 443,
        state: 'open',
        outcome: 'pass',
        message: 'port 443 (https) is medium, within medium',
        from: 'policy',
        severity: 'medium',
      },
      {
        rule: 'max-severity',
        port: 6379,
        state: 'open',
        outcome: 'fail',
        message: `port 6379 (redis) is high, worse than medium: ${redis.risk!.why}`,
        from: 'policy',
        severity: 'high',
      },
      {
        rule: 'cert-min-days',
        port: 443,
        state: 'open',
        outcome: 'fail',
        message: 'port 443 (https): its certificate expires in 3 days, fewer than 7 days',
        from: 'policy',
        severity: 'medium',
      },
    ]);
    expect(json.checks[0]).toMatchObject({ rule: 'expect-open', severity: null });
    expect(json.result).toEqual(complete([ssh, https(3), redis]));
  });

  it('junit: a testcase per finding, failed when it breaks the limit', () => {
    const suite = byName(parseXml(junitReport(outcome)), 'testsuite')[0]!;
    expect(suite.attributes).toMatchObject({ tests: '5', failures: '2' });
    const cases = byName(suite, 'testcase').map((c) => [c.attributes.classname, c.attributes.name, c.children[0]?.name ?? 'pass']);
    expect(cases).toEqual([
      ['selfscan.expect-open', 'port 22 is open', 'pass'],
      ['selfscan.max-severity', 'port 22 is within the severity limit', 'pass'],
      ['selfscan.max-severity', 'port 443 is within the severity limit', 'pass'],
      ['selfscan.max-severity', 'port 6379 is within the severity limit', 'failure'],
      ['selfscan.cert-min-days', 'port 443 has a certificate with enough days left', 'failure'],
    ]);
  });

  it("sarif: valid; a rule per kind; a result per failed finding with its own security-severity, at the policy file's line", () => {
    const sarif = JSON.parse(sarifReport(outcome)) as {
      runs: {
        tool: { driver: { rules: { id: string; properties: Record<string, string> }[] } };
        results: { ruleId: string; ruleIndex: number; level: string; locations: unknown[]; properties: Record<string, unknown> }[];
      }[];
    };
    expect(sarifErrors(sarif)).toEqual([]);
    const [run] = sarif.runs;
    const rules = run!.tool.driver.rules;
    expect(rules.map((rule) => rule.id)).toEqual([
      'expect-open',
      'expect-closed',
      'only-open',
      'max-severity',
      'cert-min-days',
      'max-amplification',
      'same-everywhere',
    ]);
    const at = (line: number) => [{ physicalLocation: { artifactLocation: { uri: expect.stringMatching(/limits\.json$/) }, region: { startLine: line } } }];
    expect(run!.results.map((r) => [r.ruleId, rules[r.ruleIndex]!.id, r.properties.port, r.properties['security-severity'], r.locations])).toEqual([
      ['max-severity', 'max-severity', 6379, SECURITY_SEVERITY_SCORE.high, at(3)],
      ['cert-min-days', 'cert-min-days', 443, SECURITY_SEVERITY_SCORE.medium, at(4)],
    ]);
    expect(run!.results[0]!.properties.severity).toBe('high');
  });
});
