// The reports of `selfscan check --regions` from multi-region results as a
// cluster answers them: the text report lists each region's status and open
// ports and the ports seen differently; json sums them up beside the
// server's result; junit has one testcase for the sameness of regions;
// sarif one result per port seen differently (and per region that did not
// finish), valid SARIF 2.1.0. Progress names the region of each chunk.
import { describe, expect, it } from 'vitest';

import { parseCheckArgs } from '../../src/client/check-options.js';
import { type CheckOutcome, outcomeOf } from '../../src/client/check-outcome.js';
import { ProgressView } from '../../src/client/progress.js';
import { jsonReport } from '../../src/client/report-json.js';
import { junitReport } from '../../src/client/report-junit.js';
import { sarifReport } from '../../src/client/report-sarif.js';
import { textReport } from '../../src/client/report-text.js';
import { sarifErrors } from '../helpers/sarif-validator.js';
import { parseXml, type XmlElement } from '../helpers/strict-xml.js';
import { DIFFERING, SAME_EVERYWHERE } from './region-bodies.js';

const startedAt = new Date('2026-11-26T13:00:00Z');

function outcome(result: typeof DIFFERING, ...args: string[]): CheckOutcome {
  const plan = parseCheckArgs(['--server', 'https://selfscan.example.org', ...args], {});
  if (plan === 'help') throw new Error('help');
  return { ...outcomeOf(plan, result, null, startedAt), durationMs: 4200 };
}

const same = () => outcome(SAME_EVERYWHERE, '--regions', 'all', '--expect-same-everywhere', '--expect-open', '22,443');
const differing = () => outcome(DIFFERING, '--regions', 'all', '--expect-same-everywhere', '--expect-open', '22');

describe('the text report', () => {
  it('names the regions, lists each one with its status and open ports, and says no port differs', () => {
    expect(textReport(same(), false)).toBe(
      `selfscan check: fast scan of 198.51.100.7 from FR, NL by https://selfscan.example.org: complete in 2.4 s

Open ports:
  22/tcp    ssh               "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3"
  443/tcp   https

Regions:
  FR  complete in 2.4 s; open: 22, 443
  NL  complete in 2.0 s; open: 22, 443
Differences: none (each region that verified a port saw it the same)

Checks:
  PASS  port 22 is open
  PASS  port 443 is open
  PASS  every region (FR, NL) sees the same ports

Verdict: PASS: 3 of 3 checks passed (exit 0)
`,
    );
  });

  it('lists each port seen differently with the regions on each side, and a region that failed', () => {
    const text = textReport(differing(), false);
    expect(text).toContain(`
Regions:
  FR  complete in 3.1 s; open: 22, 443
  NL  complete in 2.1 s; open: 22, 443, 8080
  SE  failed (interrupted)
  UK  complete in 2.6 s; open: 22, 443, 3306, 8080
Differences:
  port 3306: open from UK; closed from FR, NL; not verified from SE
  port 8080: open from NL, UK; filtered from FR; not verified from SE
`);
    expect(text).toContain(`
Checks:
  PASS  port 22 is open
  FAIL  port 3306: open from UK; closed from FR, NL; not verified from SE
  FAIL  port 8080: open from NL, UK; filtered from FR; not verified from SE
  FAIL  region SE failed (interrupted): what it did not verify cannot be shown the same as elsewhere

Verdict: FAIL: 3 of 4 checks failed (exit 1)
`);
  });
});

describe('the json report', () => {
  it('sums up what was asked, each region and the differences, beside the server’s result unchanged', () => {
    const json = JSON.parse(jsonReport(differing())) as Record<string, unknown>;
    expect(json.regions).toEqual({
      asked: 'all',
      vantages: [
        { region: 'FR', status: 'complete', fail_reason: null, ports_open: [22, 443], ports_filtered: [8080] },
        { region: 'NL', status: 'complete', fail_reason: null, ports_open: [22, 443, 8080], ports_filtered: [] },
        { region: 'SE', status: 'failed', fail_reason: 'interrupted', ports_open: [], ports_filtered: [] },
        { region: 'UK', status: 'complete', fail_reason: null, ports_open: [22, 443, 3306, 8080], ports_filtered: [] },
      ],
      differences: DIFFERING.differences,
    });
    expect(json.result).toEqual(DIFFERING);
    expect((json.checks as { rule: string; port: number | null; outcome: string }[]).filter((check) => check.rule === 'same-everywhere')).toMatchObject([
      { port: 3306, outcome: 'fail' },
      { port: 8080, outcome: 'fail' },
      { port: null, outcome: 'fail' },
    ]);
  });

  it('has regions null for a scan from one place', () => {
    const plan = parseCheckArgs(['--server', 'https://selfscan.example.org'], {});
    if (plan === 'help') throw new Error('help');
    const { vantages: _v, regions: _r, differences: _d, ...fromOnePlace } = SAME_EVERYWHERE;
    expect(JSON.parse(jsonReport(outcomeOf(plan, fromOnePlace, null, startedAt))).regions).toBeNull();
  });
});

describe('the junit report', () => {
  const testcases = (xml: string): XmlElement[] => {
    const suite = parseXml(xml).children.find((child) => child.name === 'testsuite')!;
    return suite.children.filter((child) => child.name === 'testcase');
  };

  it('has one testcase for the sameness of regions, failing with every port and region that broke it', () => {
    const xml = junitReport(differing());
    expect(xml).toContain('<testsuites name="selfscan check" tests="2" failures="1" errors="0" skipped="0" time="4.200">');
    const sameness = testcases(xml).filter((testcase) => testcase.attributes.classname === 'selfscan.same-everywhere');
    expect(sameness).toHaveLength(1);
    expect(sameness[0]!.attributes.name).toBe('every region sees the same ports');
    const failure = sameness[0]!.children.find((child) => child.name === 'failure')!;
    expect(failure.attributes.message).toBe(
      'port 3306: open from UK; closed from FR, NL; not verified from SE. ' +
        'port 8080: open from NL, UK; filtered from FR; not verified from SE. ' +
        'region SE failed (interrupted): what it did not verify cannot be shown the same as elsewhere',
    );
  });

  it('passes that testcase when every region saw the same', () => {
    const xml = junitReport(same());
    expect(xml).toContain('tests="3" failures="0" errors="0" skipped="0"');
    expect(xml).toContain('<testcase classname="selfscan.same-everywhere" name="every region sees the same ports"/>');
  });
});

describe('the sarif report', () => {
  it('has one valid result per port seen differently, with the regions on each side, and one for the region that failed', () => {
    const log = JSON.parse(sarifReport(differing()));
    expect(sarifErrors(log)).toEqual([]);
    const run = log.runs[0];
    expect(run.tool.driver.rules.map((rule: { id: string }) => rule.id)).toContain('same-everywhere');
    const results = run.results as {
      ruleId: string;
      message: { text: string };
      properties: Record<string, unknown>;
      partialFingerprints: Record<string, string>;
    }[];
    expect(results.map((result) => [result.ruleId, result.properties.port, result.properties.regions ?? result.properties.region])).toEqual([
      ['same-everywhere', 3306, { open: ['UK'], filtered: [], closed: ['FR', 'NL'], unknown: ['SE'] }],
      ['same-everywhere', 8080, { open: ['NL', 'UK'], filtered: ['FR'], closed: [], unknown: ['SE'] }],
      ['same-everywhere', undefined, 'SE'],
    ]);
    expect(results[1]!.message.text).toBe(
      'port 8080: open from NL, UK; filtered from FR; not verified from SE (fast scan of 198.51.100.7 by https://selfscan.example.org)',
    );
    expect(new Set(results.map((result) => result.partialFingerprints['selfscanCheck/v1'])).size).toBe(3);
  });

  it('has no result when every region saw the same', () => {
    expect(JSON.parse(sarifReport(same())).runs[0].results).toEqual([]);
  });
});

describe('progress', () => {
  it('shows each region’s ports done and the region of the chunk just verified', () => {
    const lines: string[] = [];
    const view = new ProgressView('lines', { write: (text: string) => lines.push(text) }, 32, 'selfscan check');
    view.update({
      chunksComplete: 0,
      totalChunks: 8,
      regions: [
        { region: 'FR', chunksComplete: 0, totalChunks: 4 },
        { region: 'NL', chunksComplete: 0, totalChunks: 4 },
      ],
    });
    view.update({
      chunksComplete: 2,
      totalChunks: 8,
      openSoFar: 1,
      region: 'NL',
      regions: [
        { region: 'FR', chunksComplete: 0, totalChunks: 4 },
        { region: 'NL', chunksComplete: 2, totalChunks: 4 },
      ],
    });
    view.update({
      chunksComplete: 4,
      totalChunks: 8,
      openSoFar: 2,
      region: 'FR',
      regions: [
        { region: 'FR', chunksComplete: 1, totalChunks: 4 },
        { region: 'NL', chunksComplete: 3, totalChunks: 4 },
      ],
    });
    expect(lines).toEqual([
      'selfscan check: 25% (FR 0/32, NL 16/32 ports, 1 open, last chunk from NL)\n',
      'selfscan check: 50% (FR 8/32, NL 24/32 ports, 2 open, last chunk from FR)\n',
    ]);
  });

  it('is unchanged for a scan from one place', () => {
    const lines: string[] = [];
    const view = new ProgressView('lines', { write: (text: string) => lines.push(text) }, 32, 'selfscan check');
    view.update({ chunksComplete: 2, totalChunks: 4, openSoFar: 1 });
    expect(lines).toEqual(['selfscan check: 25% (16/32 ports, 1 open)\n', 'selfscan check: 50% (16/32 ports, 1 open)\n']);
  });
});
