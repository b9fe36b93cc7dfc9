// `selfscan check --max-severity` and `--cert-min-days` end to end: the
// built selfscan-check against the real server, whose scan probes real
// listeners on the caller's own loopback address — a redis-server without a
// password on 6379 (high) and a TLS server on 443 whose certificate, from
// the test's own CA, expires in 3 days (medium). The text, JUnit and SARIF
// reports name both findings; a second scan after a port opened reports it
// as opened since the last scan.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SECURITY_SEVERITY_SCORE } from '../../src/api/severity-levels.js';
import { type ExposedHost, startExposedHost } from '../../support/exposed-host.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { runCheck } from '../helpers/check-cli.js';
import { sarifErrors } from '../helpers/sarif-validator.js';
import { parseXml, type XmlElement } from '../helpers/strict-xml.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HOST = '127.26.2.20';
let server: TestServer;
let exposed: ExposedHost | undefined;
let later: Listeners | undefined;
const out = mkdtempSync(join(tmpdir(), 'selfscan-check-exposure-'));

beforeAll(async () => {
  server = await startTestServer();
  exposed = await startExposedHost(HOST);
});
afterAll(async () => {
  await later?.close();
  await exposed?.close();
  await server?.close();
  rmSync(out, { recursive: true, force: true });
});

const check = (...args: string[]) => runCheck(['--server', server.url, '--source', HOST, '--no-progress', ...args]);
const byName = (element: XmlElement, name: string): XmlElement[] => element.children.filter((child) => child.name === name);

describe('limits on what the open ports expose', () => {
  it('--max-severity medium fails naming 6379, --cert-min-days 7 naming 443, in the text, JUnit and SARIF reports', async () => {
    const junit = join(out, 'junit.xml');
    const sarifPath = join(out, 'check.sarif');
    const run = await check(
      '--max-severity',
      'medium',
      '--cert-min-days',
      '7',
      '--report',
      'text',
      '--report',
      `junit=${junit}`,
      '--report',
      `sarif=${sarifPath}`,
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Highest severity: high');
    expect(run.stdout).toMatch(/^ {2}FAIL {2}port 6379 \(redis\) is high, worse than medium: .*Redis.*$/m);
    expect(run.stdout).toMatch(/^ {2}FAIL {2}port 443 \(https\): its certificate expires in [23] days, fewer than 7 days$/m);
    expect(run.stdout).toMatch(/^ {2}PASS {2}port 443 \(https\) is medium, within medium$/m);

    execFileSync('xmllint', ['--noout', junit]);
    const suite = byName(parseXml(readFileSync(junit, 'utf8')), 'testsuite')[0]!;
    const failed = byName(suite, 'testcase')
      .filter((testcase) => byName(testcase, 'failure').length > 0)
      .map((testcase) => [testcase.attributes.classname, testcase.attributes.name]);
    expect(failed).toEqual([
      ['selfscan.max-severity', 'port 6379 is within the severity limit'],
      ['selfscan.cert-min-days', 'port 443 has a certificate with enough days left'],
    ]);

    const sarif = JSON.parse(readFileSync(sarifPath, 'utf8')) as {
      runs: { results: { ruleId: string; properties: { port: number; 'security-severity': string } }[] }[];
    };
    expect(sarifErrors(sarif)).toEqual([]);
    expect(sarif.runs[0]!.results.map((result) => [result.ruleId, result.properties.port, result.properties['security-severity']])).toEqual([
      ['max-severity', 6379, SECURITY_SEVERITY_SCORE.high],
      ['cert-min-days', 443, SECURITY_SEVERITY_SCORE.medium],
    ]);
  });

  it('passes within the limits: nothing worse than high, every certificate with a day left', async () => {
    const run = await check('--max-severity', 'high', '--cert-min-days', '1');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('PASS  port 6379 (redis) is high, within high');
    expect(run.stdout).toMatch(/PASS {2}port 443 \(https\): its certificate expires in [23] days$/m);
  });

  it('reports a port opened since the last scan (text and JSON)', async () => {
    later = await listenOn(HOST, [8080]);
    const run = await check('--report', 'text', '--report', `json=${join(out, 'check.json')}`);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Changes since the scan of \d{4}-\d\d-\d\d \d\d:\d\d UTC: opened 8080; closed none; /m);
    const json = JSON.parse(readFileSync(join(out, 'check.json'), 'utf8')) as { result: { changes: { opened: number[] } } };
    expect(json.result.changes.opened).toEqual([8080]);
  });
});
