// `selfscan check --udp` end to end: the built selfscan-check against the
// real server, called from a loopback address of its own where a real
// memcached answers on UDP 11211 (the 2018 amplifier) and nothing else on
// UDP. The udp scan must report 11211/udp open and critical, with what it
// answered, in the text, json, JUnit and SARIF reports; --max-amplification
// fails on it (exit 1) and passes above its factor; the progress line of
// the one-chunk scan; --udp with --deep, and --max-amplification without
// --udp, are usage errors before anything is sent.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SECURITY_SEVERITY_SCORE } from '../../src/api/severity-levels.js';
import { startUdpMemcached, type UdpMemcached } from '../../support/udp-memcached.js';
import { cleanEnv, runCheck } from '../helpers/check-cli.js';
import { sarifErrors } from '../helpers/sarif-validator.js';
import { parseXml, type XmlElement } from '../helpers/strict-xml.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HOST = '127.0.0.94';
let server: TestServer;
let memcached: UdpMemcached | undefined;
const out = mkdtempSync(join(tmpdir(), 'selfscan-check-udp-'));

beforeAll(async () => {
  server = await startTestServer();
  memcached = await startUdpMemcached(HOST);
});
afterAll(async () => {
  await memcached?.close();
  await server?.close();
  rmSync(out, { recursive: true, force: true });
});

const check = (...args: string[]) => runCheck(['--server', server.url, '--source', HOST, '--no-progress', ...args]);
const byName = (element: XmlElement, name: string): XmlElement[] => element.children.filter((child) => child.name === name);
const scansStarted = () => server.logs.filter((line) => line.event === 'scan_queued').length;

interface UdpJson {
  scan_type: string;
  verdict: string;
  checks: { rule: string; port: number | null; outcome: string; message: string }[];
  result: { scan_type: string; ports_open: { port: number; service: string; facts: { udp: { amplification: number; evidence: string[] } } }[] };
}

interface Sarif {
  runs: {
    results: { ruleId: string; message: { text: string }; properties: Record<string, unknown> }[];
    properties: { scanType: string; openUdpPorts?: { port: number; severity: string; amplification: number; evidence: string[] }[] };
  }[];
}

describe('selfscan check --udp', () => {
  let amplification: number;

  it('reports memcached 11211/udp open and critical, with its amplification and evidence, in every report', async () => {
    const [jsonPath, junitPath, sarifPath] = [join(out, 'udp.json'), join(out, 'udp.xml'), join(out, 'udp.sarif')];
    const run = await check('--udp', '--expect-open', '11211', '--expect-closed', '53', '--report', 'text', ...reports(jsonPath, junitPath, sarifPath));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^selfscan check: udp scan of ${HOST.replaceAll('.', '\\.')} by http://127\\.0\\.0\\.1:\\d+: complete in `, 'm'));
    expect(run.stdout).toContain('Highest severity: critical');
    expect(run.stdout).toMatch(/^ {2}11211\/udp memcached$/m);
    expect(run.stdout).toMatch(/^ {12}critical: Memcached on UDP port 11211 answers anyone/m);
    expect(run.stdout).toMatch(/^ {12}amplification: \d+(\.\d+)?× \(\d+ bytes sent, \d+ received\)$/m);
    expect(run.stdout).toMatch(/^ {12}evidence: ".*memcached stats over UDP.*version \d+\.\d+/m);
    expect(run.stdout).toContain('PASS  port 11211/udp is open');
    expect(run.stdout).toMatch(/PASS {2}port 53\/udp is (closed|filtered)$/m);

    const json = JSON.parse(readFileSync(jsonPath, 'utf8')) as UdpJson;
    expect(json).toMatchObject({ scan_type: 'udp', verdict: 'pass', result: { scan_type: 'udp' } });
    expect(json.result.ports_open.map((port) => [port.port, port.service])).toEqual([[11211, 'memcached']]);
    amplification = json.result.ports_open[0]!.facts.udp.amplification;
    expect(amplification).toBeGreaterThan(2);
    expect(run.stdout).toContain(`amplification: ${amplification}× (`);

    execFileSync('xmllint', ['--noout', junitPath]);
    const suite = byName(parseXml(readFileSync(junitPath, 'utf8')), 'testsuite')[0]!;
    expect(suite.attributes.name).toBe(`selfscan check: udp scan of ${HOST}`);
    expect(byName(suite, 'testcase').map((testcase) => testcase.attributes.name)).toEqual(['port 53/udp is closed or filtered', 'port 11211/udp is open']);
    expect(byName(suite, 'system-out')[0]!.text).toMatch(
      new RegExp(`^ {2}11211/udp memcached, critical, amplification ${amplification}× .*: .*memcached stats`, 'm'),
    );

    const sarif = JSON.parse(readFileSync(sarifPath, 'utf8')) as Sarif;
    expect(sarifErrors(sarif)).toEqual([]);
    expect(sarif.runs[0]!.results).toEqual([]);
    expect(sarif.runs[0]!.properties.openUdpPorts).toEqual([
      expect.objectContaining({ port: 11211, severity: 'critical', amplification, evidence: [expect.stringContaining('memcached stats')] }),
    ]);
  });

  it('--max-amplification 2 fails on memcached (exit 1), a finding in the text, JUnit and SARIF reports', async () => {
    const [junitPath, sarifPath] = [join(out, 'amplifier.xml'), join(out, 'amplifier.sarif')];
    const run = await check('--udp', '--max-amplification', '2', '--report', 'text', '--report', `junit=${junitPath}`, '--report', `sarif=${sarifPath}`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^ {2}FAIL {2}port 11211\/udp \(memcached\) answered \d+(\.\d+)?× the bytes it was sent, more than 2×: .*memcached stats/m);
    expect(run.stdout).toContain('Verdict: FAIL: 1 of 1 checks failed (exit 1)');

    execFileSync('xmllint', ['--noout', junitPath]);
    const suite = byName(parseXml(readFileSync(junitPath, 'utf8')), 'testsuite')[0]!;
    const failed = byName(suite, 'testcase').filter((testcase) => byName(testcase, 'failure').length > 0);
    expect(failed.map((testcase) => [testcase.attributes.classname, testcase.attributes.name])).toEqual([
      ['selfscan.max-amplification', 'port 11211/udp is within the amplification limit'],
    ]);

    const sarif = JSON.parse(readFileSync(sarifPath, 'utf8')) as Sarif;
    expect(sarifErrors(sarif)).toEqual([]);
    const [finding] = sarif.runs[0]!.results;
    expect(finding).toMatchObject({
      ruleId: 'max-amplification',
      message: { text: expect.stringContaining('port 11211/udp (memcached) answered') },
      properties: { port: 11211, protocol: 'udp', service: 'memcached', severity: 'critical', 'security-severity': SECURITY_SEVERITY_SCORE.critical },
    });
    expect(finding!.properties.amplification).toBeGreaterThan(2);
  });

  it('passes --max-amplification above the factor memcached answered, and --max-severity critical', async () => {
    const run = await check('--udp', '--max-amplification', String(Math.ceil(amplification) + 1), '--max-severity', 'critical');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}PASS {2}port 11211\/udp \(memcached\) answered .*× the bytes it was sent, within \d+×$/m);
    expect(run.stdout).toContain('PASS  port 11211/udp (memcached) is critical, within critical');
  });

  it('fails --max-severity high on memcached, as on TCP', async () => {
    const run = await check('--udp', '--max-severity', 'high');
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^ {2}FAIL {2}port 11211\/udp \(memcached\) is critical, worse than high: Memcached on UDP port 11211/m);
  });

  it('with CI set, the one-chunk scan gets one progress line, at 100%', async () => {
    const run = await runCheck(['--server', server.url, '--source', HOST, '--udp'], { env: cleanEnv({ CI: 'true' }) });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('selfscan-check: 100% (20/20 ports, 1 open)\n');
  });
});

describe('usage errors of --udp, before anything is sent', () => {
  it.each([
    [['--udp', '--deep'], '--deep and --udp exclude each other'],
    [['--max-amplification', '2'], "--max-amplification judges a udp scan's answers: pass --udp"],
    [['--udp', '--max-amplification', '0'], '--max-amplification needs a factor above 0'],
    [['--udp', '--expect-open', '22'], 'a udp scan covers only UDP 17,19,53,'],
  ])('%j', async (args, message) => {
    const before = scansStarted();
    const run = await check(...args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(message);
    expect(scansStarted()).toBe(before);
  });
});

function reports(jsonPath: string, junitPath: string, sarifPath: string): string[] {
  return ['--report', `json=${jsonPath}`, '--report', `junit=${junitPath}`, '--report', `sarif=${sarifPath}`];
}
