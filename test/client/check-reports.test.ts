// The reports of `selfscan check`, several from one scan: text, json (the
// documented shape, the server's result unchanged), junit (parsed as XML,
// by the test's strict parser and by xmllint), sarif (validated against
// the SARIF 2.1.0 schema, located at the policy file's lines, with
// fingerprints that stay the same from run to run).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callerFetch } from '../../support/callers.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { ROOT, runCheck } from '../helpers/check-cli.js';
import { sarifErrors } from '../helpers/sarif-validator.js';
import { parseXml, type XmlElement } from '../helpers/strict-xml.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HOST = '127.0.0.170';
let server: TestServer;
let listeners: Listeners;
const work = mkdtempSync(join(ROOT, '.check-reports-'));
const out = mkdtempSync(join(tmpdir(), 'selfscan-reports-'));
// The policy as a repository would hold it; its lines are what SARIF points at.
const POLICY = `{
  "$comment": "ports this host may expose",
  "expect_open": [22],
  "expect_closed": "8080",
  "only_open": true
}
`;
const policyPath = join(work, 'selfscan-policy.json');

beforeAll(async () => {
  server = await startTestServer();
  listeners = await listenOn(HOST, [22, 8080, 5432], 'hello <&> "there"');
  writeFileSync(policyPath, POLICY);
});
afterAll(async () => {
  await listeners?.close();
  await server?.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
});

const paths = { json: join(out, 'check.json'), junit: join(out, 'junit.xml'), sarif: join(out, 'check.sarif') };

/** One run with every report: text on stdout, the others in files. */
async function everyReport(extra: string[] = [], source = HOST) {
  const run = await runCheck([
    '--server',
    server.url,
    '--source',
    source,
    '--no-progress',
    '--policy',
    relative(ROOT, policyPath),
    '--expect-open',
    '443',
    '--report',
    'text',
    '--report',
    `json=${paths.json}`,
    '--report',
    `junit=${paths.junit}`,
    '--report',
    `sarif=${paths.sarif}`,
    ...extra,
  ]);
  return {
    run,
    json: JSON.parse(readFileSync(paths.json, 'utf8')) as Record<string, unknown> & { checks: Record<string, unknown>[] },
    junit: readFileSync(paths.junit, 'utf8'),
    sarif: JSON.parse(readFileSync(paths.sarif, 'utf8')) as SarifLog,
  };
}

interface SarifLog {
  version: string;
  runs: {
    tool: { driver: { rules: { id: string; fullDescription: { text: string }; help: { text: string }; properties: Record<string, unknown> }[] } };
    results: { ruleId: string; message: { text: string }; locations: unknown[]; partialFingerprints: Record<string, string>; properties: { port: number } }[];
    invocations: { executionSuccessful: boolean; exitCode: number; toolExecutionNotifications: { message: { text: string } }[] }[];
  }[];
}

const byName = (element: XmlElement, name: string): XmlElement[] => element.children.filter((child) => child.name === name);

describe('every report from one scan', () => {
  let reports: Awaited<ReturnType<typeof everyReport>>;
  beforeAll(async () => {
    reports = await everyReport();
  });

  it('ran one scan and failed (exit 1): 443 closed, 8080 open, 5432 open unexpected', () => {
    expect(reports.run.code).toBe(1);
    expect(server.logs.filter((line) => line.event === 'scan_queued' && line.ip === HOST)).toHaveLength(1);
    expect(reports.run.stdout).toContain('FAIL  port 443 is closed, expected open');
    expect(reports.run.stdout).toContain('FAIL  port 8080 is open, expected closed or filtered');
    expect(reports.run.stdout).toContain('FAIL  port 5432 (postgresql) is open but not expected open');
    expect(reports.run.stdout).toMatch(/^ {2}22\/tcp +ssh +"hello <&> \\"there\\""$/m);
  });

  it('json: the documented shape, with the server result unchanged', async () => {
    const { json } = reports;
    expect(Object.keys(json)).toEqual([
      'format',
      'server',
      'scan_type',
      'started_at',
      'duration_ms',
      'verdict',
      'exit_code',
      'error',
      'checks',
      'regions',
      'result',
    ]);
    expect(json).toMatchObject({
      format: 'selfscan-check/1',
      server: `${server.url}/`,
      scan_type: 'fast',
      verdict: 'fail',
      exit_code: 1,
      error: null,
      regions: null,
    });
    expect(json.checks).toEqual([
      { rule: 'expect-open', port: 22, state: 'open', outcome: 'pass', message: 'port 22 is open', from: 'policy', severity: null },
      { rule: 'expect-open', port: 443, state: 'closed', outcome: 'fail', message: 'port 443 is closed, expected open', from: 'flag', severity: null },
      {
        rule: 'expect-closed',
        port: 8080,
        state: 'open',
        outcome: 'fail',
        message: 'port 8080 is open, expected closed or filtered',
        from: 'policy',
        severity: null,
      },
      {
        rule: 'only-open',
        port: 5432,
        state: 'open',
        outcome: 'fail',
        message: 'port 5432 (postgresql) is open but not expected open',
        from: 'policy',
        severity: null,
      },
    ]);
    const kept = await (await callerFetch(HOST)(`${server.url}/v1/fast`)).json();
    expect(json.result).toEqual(kept);
  });

  it('junit: well-formed XML (xmllint and a strict parser), one testcase per check, the message in attribute and body', () => {
    execFileSync('xmllint', ['--noout', paths.junit]);
    const root = parseXml(reports.junit);
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toMatchObject({ tests: '4', failures: '3', errors: '0', skipped: '0' });
    const [suite] = byName(root, 'testsuite');
    expect(suite!.attributes.name).toBe(`selfscan check: fast scan of ${HOST}`);
    const cases = byName(suite!, 'testcase');
    expect(cases.map((c) => [c.attributes.classname, c.attributes.name])).toEqual([
      ['selfscan.expect-open', 'port 22 is open'],
      ['selfscan.expect-open', 'port 443 is open'],
      ['selfscan.expect-closed', 'port 8080 is closed or filtered'],
      ['selfscan.only-open', 'port 5432 is not open'],
    ]);
    expect(cases[0]!.children).toEqual([]);
    for (const failed of cases.slice(1)) {
      const [failure] = failed.children;
      expect(failure!.name).toBe('failure');
      expect(failure!.text).toBe(failure!.attributes.message);
    }
    expect(byName(cases[1]!, 'failure')[0]!.attributes).toEqual({ message: 'port 443 is closed, expected open', type: 'expect-open' });
  });

  it('sarif: valid SARIF 2.1.0; rules with fullDescription, help and security-severity; results at the policy file lines', () => {
    const { sarif } = reports;
    expect(sarifErrors(sarif)).toEqual([]);
    const [run] = sarif.runs;
    for (const rule of run!.tool.driver.rules) {
      expect(rule.fullDescription.text).not.toBe('');
      expect(rule.help.text).not.toBe('');
      expect(Number(rule.properties['security-severity'])).toBeGreaterThan(0);
    }
    const uri = relative(ROOT, policyPath);
    const at = (line: number) => [{ physicalLocation: { artifactLocation: { uri }, region: { startLine: line } } }];
    expect(run!.results.map((r) => [r.ruleId, r.properties.port, r.locations])).toEqual([
      ['expect-open', 443, at(1)], // from the flag: the file's first line
      ['expect-closed', 8080, at(4)],
      ['only-open', 5432, at(5)],
    ]);
    expect(run!.invocations[0]).toMatchObject({ executionSuccessful: true, exitCode: 1 });
  });

  it('sarif: the same findings get the same partialFingerprints on the next run', async () => {
    const again = await everyReport();
    const fingerprints = (log: SarifLog) => log.runs[0]!.results.map((r) => r.partialFingerprints);
    expect(fingerprints(again.sarif)).toEqual(fingerprints(reports.sarif));
    expect(new Set(fingerprints(reports.sarif).map((f) => JSON.stringify(f))).size).toBe(3);
  });
});

describe('reports of a run that could not decide', () => {
  it('junit has an errored scan testcase, sarif stays valid and says the run failed, json carries the error', async () => {
    const run = await runCheck([
      '--server',
      'http://127.0.0.1:9',
      '--expect-open',
      '22',
      '--report',
      `junit=${paths.junit}`,
      '--report',
      `sarif=${paths.sarif}`,
      '--report',
      'json',
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^selfscan-check: cannot reach http:\/\/127\.0\.0\.1:9/m);
    const json = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ verdict: 'error', exit_code: 2, error: { kind: 'unreachable' }, result: null });

    execFileSync('xmllint', ['--noout', paths.junit]);
    const suite = byName(parseXml(readFileSync(paths.junit, 'utf8')), 'testsuite')[0]!;
    const cases = byName(suite, 'testcase');
    expect(cases.map((c) => c.children[0]?.name)).toEqual(['skipped', 'error']);
    expect(cases[1]!.attributes.name).toBe('scan');
    expect(cases[1]!.children[0]!.attributes.type).toBe('unreachable');

    const sarif = JSON.parse(readFileSync(paths.sarif, 'utf8')) as SarifLog;
    expect(sarifErrors(sarif)).toEqual([]);
    expect(sarif.runs[0]!.invocations[0]).toMatchObject({ executionSuccessful: false, exitCode: 2 });
    expect(sarif.runs[0]!.invocations[0]!.toolExecutionNotifications[0]!.message.text).toMatch(/cannot reach/);
    expect(sarif.runs[0]!.results).toEqual([]);
  });

  it('a report that cannot be written is exit 2', async () => {
    const run = await runCheck(['--server', server.url, '--source', '127.0.0.171', '--no-progress', '--report', `json=${join(out, 'no/such/dir.json')}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/cannot write the json report: ENOENT/);
  });
});

it('the schema check is real: a SARIF log missing what 2.1.0 requires is refused', () => {
  expect(sarifErrors({ version: '2.1.0', runs: [{ tool: { driver: {} } }] })).not.toEqual([]);
  expect(sarifErrors({ version: '2.0.0', runs: [] })).not.toEqual([]);
});

it('the strict XML parser is real: it refuses what is not well-formed', () => {
  expect(() => parseXml('<a><b></a></b>')).toThrow();
  expect(() => parseXml('<a x="1 & 2"/>')).toThrow();
  expect(() => parseXml('<a>1 < 2</a>')).toThrow();
  expect(() => parseXml('<a/><b/>')).toThrow();
  expect(parseXml('<a x="&lt;&#38;">t&amp;</a>')).toEqual({ name: 'a', attributes: { x: '<&' }, children: [], text: 't&' });
});
