// `selfscan check --udp` and `--max-amplification` as pure logic: the flags
// and policy keys made into a plan (the scan type asked once, expectations
// within the udp scan's ports, the amplification limit only on a udp scan),
// the amplification check against udp results as the server answers them
// (and against one without udp facts: could not decide), every report of
// a udp scan naming its ports `53/udp` with what each answered, and the
// progress lines of its one chunk. check-udp.test.ts in test/client proves
// the same against the real server and a real memcached.
import { describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import type { ScanResultComplete, ScanResultFinal, ScanResultIncomplete } from '../../src/api/scan-result.js';
import { SECURITY_SEVERITY_SCORE } from '../../src/api/severity-levels.js';
import { type CheckOutcome, outcomeOf } from '../../src/client/check-outcome.js';
import { ProgressView } from '../../src/client/progress.js';
import { jsonReport } from '../../src/client/report-json.js';
import { junitReport } from '../../src/client/report-junit.js';
import { sarifReport } from '../../src/client/report-sarif.js';
import { textReport } from '../../src/client/report-text.js';
import { plan, policyFiles, usageError } from '../helpers/check-plans.js';
import { sarifErrors } from '../helpers/sarif-validator.js';
import { parseXml, type XmlElement } from '../helpers/strict-xml.js';

const policy = policyFiles('selfscan-check-udp-');

const NOW = 1_795_300_000;
const started = new Date(NOW * 1000);

const memcached: Port = {
  port: 11211,
  state: 'open',
  service: 'memcached',
  banner: 'answers memcached stats over UDP: version 1.6.18',
  facts: {
    udp: {
      service: 'memcached',
      bytes_sent: 15,
      bytes_received: 2221,
      amplification: 148.07,
      evidence: ['answers memcached stats over UDP: version 1.6.18'],
      details: { version: '1.6.18', uptime: 12, curr_connections: 2 },
    },
  },
  risk: {
    severity: 'critical',
    why: 'Memcached on UDP port 11211 answers anyone: it can reflect attacks at tens of thousands of times their size.',
    fix: 'Close UDP port 11211 to the internet (firewall), or bind Memcached to a private address.',
  },
};
const dns: Port = {
  port: 53,
  state: 'open',
  service: 'dns',
  banner: 'answered a query for version.bind: dnsmasq-2.89',
  facts: {
    udp: {
      service: 'dns',
      bytes_sent: 60,
      bytes_received: 90,
      amplification: 1.5,
      evidence: ['answered a query for version.bind: dnsmasq-2.89', 'refused a recursive query for example.com'],
      details: { recursive: false, version: 'dnsmasq-2.89' },
    },
  },
  risk: { severity: 'info', why: 'DNS on UDP port 53 answers; nothing known about it is risky.', fix: 'Keep UDP port 53 open only if meant.' },
};

function udpResult(ports: Port[], extra: Partial<ScanResultComplete> = {}): ScanResultComplete {
  return {
    ip: '198.51.100.7',
    scan_type: 'udp',
    status: 'complete',
    ports_open: ports,
    ports_filtered: [{ port: 161, state: 'filtered', service: 'snmp', banner: null }],
    service_banners: {},
    ptr_record: null,
    duration_ms: 1800,
    completed_at: NOW,
    expires_at: NOW + 86_400,
    severity: ports.some((port) => port.port === 11211) ? 'critical' : 'info',
    changes: null,
    ...extra,
  };
}

const outcome = (result: ScanResultFinal, ...args: string[]): CheckOutcome => ({ ...outcomeOf(plan(...args), result, null, started), durationMs: 2100 });
const byName = (element: XmlElement, name: string): XmlElement[] => element.children.filter((child) => child.name === name);

describe('--udp and --max-amplification as a plan', () => {
  it('asks a udp scan by flag or policy, with its default timeout; fast when neither asks', () => {
    expect(plan('--udp')).toMatchObject({ scanType: 'udp', timeoutMs: 120_000 });
    expect(plan('--policy', policy({ udp: true }))).toMatchObject({ scanType: 'udp' });
    expect(plan('--policy', policy({ udp: false })).scanType).toBe('fast');
    expect(plan().scanType).toBe('fast');
  });

  it('refuses --deep with --udp, from flags and policy alike', () => {
    expect(usageError('--udp', '--deep')).toBe('--deep and --udp exclude each other: a scan is deep (TCP) or udp');
    expect(usageError('--udp', '--policy', policy({ deep: true }))).toBe("the policy's deep and --udp exclude each other: a scan is deep (TCP) or udp");
    expect(usageError('--policy', policy({ deep: true, udp: true }))).toBe(
      "the policy's deep and the policy's udp exclude each other: a scan is deep (TCP) or udp",
    );
    expect(usageError('--policy', policy({ udp: 'yes' }))).toBe('policy: udp must be a boolean');
  });

  it('takes expectations of the udp scan’s UDP ports only', () => {
    expect(plan('--udp', '--expect-open', '53,123', '--expect-closed', '11211').expectations.map(({ port, expect }) => [port, expect])).toEqual([
      [53, 'open'],
      [123, 'open'],
      [11211, 'closed'],
    ]);
    expect(usageError('--udp', '--expect-open', '22')).toBe(
      'a udp scan covers only UDP 17,19,53,69,111,123,137,161,389,500,623,1194,1434,1900,3702,5060,5353,5683,10001,11211; port 22 is not among them',
    );
    expect(usageError('--udp', '--expect-closed', '80,443')).toMatch(/; ports 80,443 are not among them$/);
    expect(usageError('--policy', policy({ udp: true, expect_closed: [6379] }))).toMatch(/; port 6379 is not among them$/);
    expect(usageError('--expect-open', '123')).toMatch(/^a fast scan covers only .*; port 123 need --deep$/);
  });

  it('takes --max-amplification as a factor above 0, from the flag or the policy, the flag winning', () => {
    expect(plan('--udp', '--max-amplification', '2').maxAmplification).toEqual({ value: 2, from: 'flag' });
    expect(plan('--udp', '--max-amplification', '1.5').maxAmplification).toEqual({ value: 1.5, from: 'flag' });
    const path = policy({ udp: true, max_amplification: 10 });
    expect(plan('--policy', path).maxAmplification).toEqual({ value: 10, from: 'policy' });
    expect(plan('--policy', path).policy?.lines.max_amplification).toBe(3);
    expect(plan('--policy', path, '--max-amplification', '3').maxAmplification).toEqual({ value: 3, from: 'flag' });
    expect(plan('--udp').maxAmplification).toBeUndefined();
  });

  it.each([
    [['--udp', '--max-amplification', '0'], '--max-amplification needs a factor above 0, like 2 or 1.5, not "0"'],
    [['--udp', '--max-amplification=-2'], '--max-amplification needs a factor above 0, like 2 or 1.5, not "-2"'],
    [['--udp', '--max-amplification', 'big'], '--max-amplification needs a factor above 0, like 2 or 1.5, not "big"'],
    [['--udp', '--max-amplification', '1e3'], '--max-amplification needs a factor above 0, like 2 or 1.5, not "1e3"'],
    [['--max-amplification', '2'], "--max-amplification judges a udp scan's answers: pass --udp"],
    [['--deep', '--max-amplification', '2'], "--max-amplification judges a udp scan's answers: pass --udp"],
  ])('%j is a usage error', (args, message) => {
    expect(usageError(...args)).toBe(message);
  });

  it.each([
    [{ udp: true, max_amplification: 0 }, 'policy: max_amplification must be a factor above 0, like 2 or 1.5'],
    [{ udp: true, max_amplification: '2' }, 'policy: max_amplification must be a number'],
    [{ max_amplification: 2 }, "policy: max_amplification judges a udp scan's answers: pass --udp"],
  ])('a policy with %j is a usage error', (content, message) => {
    expect(usageError('--policy', policy(content))).toBe(message);
  });
});

describe('the amplification check', () => {
  it('fails on each open UDP port that answered more than the factor, with its evidence and severity; passes the others', () => {
    const { checks, verdict, exitCode } = outcome(udpResult([dns, memcached]), '--udp', '--max-amplification', '2');
    expect([verdict, exitCode]).toEqual(['fail', 1]);
    expect(checks).toEqual([
      {
        rule: 'max-amplification',
        port: 53,
        state: 'open',
        from: 'flag',
        severity: 'info',
        outcome: 'pass',
        message: 'port 53/udp (dns) answered 1.5× the bytes it was sent, within 2×',
      },
      {
        rule: 'max-amplification',
        port: 11211,
        state: 'open',
        from: 'flag',
        severity: 'critical',
        outcome: 'fail',
        message: 'port 11211/udp (memcached) answered 148.07× the bytes it was sent, more than 2×: answers memcached stats over UDP: version 1.6.18',
      },
    ]);
  });

  it('passes when no UDP port is open, or none answers more than the factor', () => {
    expect(outcome(udpResult([]), '--udp', '--max-amplification', '2').checks).toEqual([
      { rule: 'max-amplification', state: 'closed', from: 'flag', outcome: 'pass', message: 'no open UDP port answers more than 2× the bytes it is sent' },
    ]);
    expect(outcome(udpResult([dns, memcached]), '--udp', '--max-amplification', '200').verdict).toBe('pass');
  });

  it('an incomplete scan with --allow-incomplete: a found amplifier fails, a clean one leaves the rest undecided', () => {
    const incomplete = (ports: Port[]): ScanResultIncomplete => ({
      ...udpResult(ports),
      status: 'incomplete',
      partial: true,
      chunks_complete: 0,
      total_chunks: 1,
    });
    const judged = (ports: Port[]) =>
      outcome(incomplete(ports), '--udp', '--max-amplification', '2', '--allow-incomplete').checks.map(({ port, outcome }) => [port, outcome]);
    expect(judged([dns, memcached])).toEqual([
      [53, 'pass'],
      [11211, 'fail'],
    ]);
    expect(judged([dns])).toEqual([
      [53, 'pass'],
      [undefined, 'undecided'],
    ]);
    expect(outcome(incomplete([dns]), '--udp', '--max-amplification', '2', '--allow-incomplete').checks[1]!.message).toBe(
      'ports the scan did not reach: not decided (the scan was incomplete)',
    );
  });

  it('a server that reports no udp facts cannot decide it: undecided, exit 2, as --max-severity without facts', () => {
    const { facts: _facts, ...bare } = memcached;
    const judged = outcome(udpResult([bare]), '--udp', '--max-amplification', '2');
    expect(judged.checks).toEqual([
      {
        rule: 'max-amplification',
        state: 'unknown',
        from: 'flag',
        outcome: 'undecided',
        message: 'amplification: not decided (the server reported no udp facts about open ports)',
      },
    ]);
    expect(judged).toMatchObject({
      verdict: 'error',
      exitCode: 2,
      error: { kind: 'unassessed', message: expect.stringContaining('--max-amplification cannot be judged') },
    });
  });

  it('--max-severity and --only-open judge UDP ports as they judge TCP ports, naming them /udp', () => {
    const { checks } = outcome(udpResult([dns, memcached]), '--udp', '--expect-open', '53', '--expect-closed', '161', '--only-open', '--max-severity', 'high');
    expect(checks.map(({ rule, outcome, message }) => [rule, outcome, message])).toEqual([
      ['expect-open', 'pass', 'port 53/udp is open'],
      ['expect-closed', 'pass', 'port 161/udp is filtered'],
      ['only-open', 'fail', 'port 11211/udp (memcached) is open but not expected open'],
      ['max-severity', 'pass', 'port 53/udp (dns) is info, within high'],
      ['max-severity', 'fail', `port 11211/udp (memcached) is critical, worse than high: ${memcached.risk!.why}`],
    ]);
  });
});

describe('the reports of a udp scan', () => {
  const amplifier = () => outcome(udpResult([dns, memcached]), '--udp', '--expect-open', '53', '--max-amplification', '2');

  it('text: each open port as PORT/udp with its severity, amplification and every evidence; the finding among the checks', () => {
    expect(textReport(amplifier(), false)).toBe(
      `selfscan check: udp scan of 198.51.100.7 by https://selfscan.example.org: complete in 1.8 s
Highest severity: critical

Open ports:
  53/udp    dns
            info: DNS on UDP port 53 answers; nothing known about it is risky.
            fix: Keep UDP port 53 open only if meant.
            amplification: 1.5× (60 bytes sent, 90 received)
            evidence: "answered a query for version.bind: dnsmasq-2.89"
            evidence: "refused a recursive query for example.com"
  11211/udp memcached
            critical: ${memcached.risk!.why}
            fix: ${memcached.risk!.fix}
            amplification: 148.07× (15 bytes sent, 2221 received)
            evidence: "answers memcached stats over UDP: version 1.6.18"

Changes: none known (the server remembers no earlier scan of this address)

Checks:
  PASS  port 53/udp is open
  PASS  port 53/udp (dns) answered 1.5× the bytes it was sent, within 2×
  FAIL  port 11211/udp (memcached) answered 148.07× the bytes it was sent, more than 2×: answers memcached stats over UDP: version 1.6.18

Verdict: FAIL: 1 of 3 checks failed (exit 1)
`,
    );
  });

  it('json: scan_type udp, the finding a check, the result with each port’s udp facts unchanged', () => {
    const json = JSON.parse(jsonReport(amplifier())) as { scan_type: string; checks: Record<string, unknown>[]; result: ScanResultComplete };
    expect(json.scan_type).toBe('udp');
    expect(json.checks.at(-1)).toEqual({
      rule: 'max-amplification',
      port: 11211,
      state: 'open',
      outcome: 'fail',
      message: 'port 11211/udp (memcached) answered 148.07× the bytes it was sent, more than 2×: answers memcached stats over UDP: version 1.6.18',
      from: 'flag',
      severity: 'critical',
    });
    expect(json.result).toEqual(udpResult([dns, memcached]));
  });

  it('junit: testcases name PORT/udp, the finding fails, system-out lists each open UDP port with amplification and evidence', () => {
    const suite = byName(parseXml(junitReport(amplifier())), 'testsuite')[0]!;
    expect(suite.attributes).toMatchObject({ name: 'selfscan check: udp scan of 198.51.100.7', tests: '3', failures: '1' });
    expect(byName(suite, 'testcase').map((c) => [c.attributes.classname, c.attributes.name, c.children[0]?.name ?? 'pass'])).toEqual([
      ['selfscan.expect-open', 'port 53/udp is open', 'pass'],
      ['selfscan.max-amplification', 'port 53/udp is within the amplification limit', 'pass'],
      ['selfscan.max-amplification', 'port 11211/udp is within the amplification limit', 'failure'],
    ]);
    expect(byName(suite, 'system-out')[0]!.text).toBe(
      `Open UDP ports:
  53/udp dns, info, amplification 1.5× (60 bytes sent, 90 received): answered a query for version.bind: dnsmasq-2.89; refused a recursive query for example.com
  11211/udp memcached, critical, amplification 148.07× (15 bytes sent, 2221 received): answers memcached stats over UDP: version 1.6.18`,
    );
  });

  it('junit: a TCP scan has no system-out', () => {
    const tcp = outcomeOf(plan(), { ...udpResult([]), scan_type: 'fast' }, null, started);
    expect(byName(byName(parseXml(junitReport(tcp)), 'testsuite')[0]!, 'system-out')).toEqual([]);
  });

  it('sarif: valid; the finding as grave as the port, with what it answered; the run lists every open UDP port', () => {
    const log = JSON.parse(sarifReport(amplifier()));
    expect(sarifErrors(log)).toEqual([]);
    const [run] = log.runs;
    expect(run.tool.driver.rules.find((rule: { id: string }) => rule.id === 'max-amplification')).toMatchObject({
      name: 'UdpAmplifierAboveLimit',
      properties: { 'security-severity': SECURITY_SEVERITY_SCORE.high },
    });
    expect(run.results).toHaveLength(1);
    expect(run.results[0]).toMatchObject({
      ruleId: 'max-amplification',
      message: {
        text: expect.stringMatching(/^port 11211\/udp \(memcached\) answered 148\.07× .* \(udp scan of 198\.51\.100\.7 by https:\/\/selfscan\.example\.org\)$/),
      },
      properties: {
        port: 11211,
        protocol: 'udp',
        service: 'memcached',
        amplification: 148.07,
        bytesSent: 15,
        bytesReceived: 2221,
        evidence: ['answers memcached stats over UDP: version 1.6.18'],
        severity: 'critical',
        'security-severity': SECURITY_SEVERITY_SCORE.critical,
      },
    });
    expect(run.properties.openUdpPorts.map(({ port, severity, amplification }: Record<string, unknown>) => [port, severity, amplification])).toEqual([
      [53, 'info', 1.5],
      [11211, 'critical', 148.07],
    ]);
  });

  it('sarif: a udp port’s fingerprint differs from the same TCP port’s', () => {
    const fingerprint = (text: string): string => JSON.parse(text).runs[0].results[0].partialFingerprints['selfscanCheck/v1'];
    const udp = sarifReport(outcome(udpResult([]), '--udp', '--expect-open', '53'));
    const tcp = sarifReport(outcome({ ...udpResult([]), scan_type: 'fast' }, '--expect-open', '53'));
    expect(fingerprint(udp)).not.toBe(fingerprint(tcp));
  });
});

describe('progress of the one-chunk udp scan', () => {
  it('CI lines: only the 100% line, not the quarters it jumped', () => {
    const lines: string[] = [];
    const view = new ProgressView('lines', { write: (text: string) => lines.push(text) }, 20, 'selfscan check');
    view.update({ chunksComplete: 0, totalChunks: 1, openSoFar: 0 });
    view.update({ chunksComplete: 1, totalChunks: 1, openSoFar: 2 });
    expect(lines).toEqual(['selfscan check: 100% (20/20 ports, 2 open)\n']);
  });

  it('CI lines of a two-chunk scan: 50% and 100%, not the quarters between', () => {
    const lines: string[] = [];
    const view = new ProgressView('lines', { write: (text: string) => lines.push(text) }, 20, 'selfscan check');
    view.update({ chunksComplete: 1, totalChunks: 2, openSoFar: 1 });
    view.update({ chunksComplete: 2, totalChunks: 2, openSoFar: 1 });
    expect(lines).toEqual(['selfscan check: 50% (10/20 ports, 1 open)\n', 'selfscan check: 100% (20/20 ports, 1 open)\n']);
  });

  it('the bar: empty, then full with no ETA', () => {
    const written: string[] = [];
    const view = new ProgressView('bar', { write: (text: string) => written.push(text) }, 20, 'selfscan check');
    view.update({ chunksComplete: 0, totalChunks: 1, openSoFar: 0 });
    view.update({ chunksComplete: 1, totalChunks: 1, openSoFar: 1 });
    expect(written.map((text) => text.trimEnd())).toEqual([`\r[${'-'.repeat(24)}] 0/20 ports, 0 open`, `\r[${'#'.repeat(24)}] 20/20 ports, 1 open`]);
  });
});
