// `selfscan check --regions` against a real cluster on loopback: its own
// redis-server, scanner nodes in NL and FR (which see the same here) and an
// API node, each a `selfscan serve` process. `--regions all
// --expect-same-everywhere` passes and every report lists both regions;
// the stream cut by a proxy is followed by polling the same multi-region
// scan; an unknown region and a single-process server end with the
// server's 422 invalid_regions reason, exit 2; a malformed --regions is a
// usage error before anything is sent.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { cleanEnv, runCheck } from '../helpers/check-cli.js';
import { startCuttingProxy } from '../helpers/cutting-proxy.js';
import { parseXml } from '../helpers/strict-xml.js';

const HOST = '127.0.0.200';
const CUT_HOST = '127.0.0.201';
const OPEN = [22, 443];

let redis: RedisServer;
let listeners: Listeners[] = [];
const nodes: ServerProcess[] = [];
let api: ServerProcess;
const out = mkdtempSync(join(tmpdir(), 'selfscan-check-regions-'));

beforeAll(async () => {
  redis = await startRedisServer();
  listeners = [await listenOn(HOST, OPEN, 'SSH-2.0-regions'), await listenOn(CUT_HOST, OPEN, 'SSH-2.0-regions-cut')];
  for (const region of ['NL', 'FR']) nodes.push(await startNode(redis.path, { role: 'scanner', region }));
  // The check connects from HOST itself (--source), which the node scans: it allows private targets.
  api = await startNode(redis.path, { role: 'api', config: { chunkWindow: 4 } });
  nodes.push(api);
}, 60_000);

afterAll(async () => {
  await killAll(nodes);
  for (const opened of listeners) await opened.close();
  await redis?.close();
  rmSync(out, { recursive: true, force: true });
});

const check = (source: string, ...args: string[]) => runCheck(['--server', api.url, '--source', source, ...args], { env: cleanEnv({ CI: 'true' }) });

describe('a cluster whose regions see the same', () => {
  it('--regions all --expect-same-everywhere passes; the text, json and junit reports list both regions; progress names each chunk’s region', async () => {
    const json = join(out, 'check.json');
    const junit = join(out, 'junit.xml');
    const run = await check(
      HOST,
      '--regions',
      'all',
      '--expect-same-everywhere',
      '--expect-open',
      '22,443',
      '--only-open',
      '--report',
      'text',
      '--report',
      `json=${json}`,
      '--report',
      `junit=${junit}`,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(`^selfscan check: fast scan of ${HOST.replace(/\./g, '\\.')} from FR, NL by http://127\\.0\\.0\\.1:\\d+: complete in `),
    );
    expect(run.stdout).toMatch(
      /^Regions:\n {2}FR {2}complete in [\d.]+ m?s; open: 22, 443\n {2}NL {2}complete in [\d.]+ m?s; open: 22, 443\nDifferences: none/m,
    );
    expect(run.stdout).toContain('PASS  every region (FR, NL) sees the same ports');
    expect(run.stdout).toContain('Verdict: PASS: 4 of 4 checks passed (exit 0)');
    // CI is set: a line per quarter, each naming the regions and the region of the last chunk.
    expect(run.stderr).toMatch(/^selfscan-check: 100% \(FR 32\/32, NL 32\/32 ports, 2 open, last chunk from (FR|NL)\)$/m);

    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      verdict: string;
      regions: { asked: string; vantages: { region: string; status: string; ports_open: number[] }[]; differences: unknown[] };
      result: { regions: string[] };
    };
    expect(report.verdict).toBe('pass');
    expect(report.regions.asked).toBe('all');
    expect(report.regions.vantages.map(({ region, status, ports_open }) => [region, status, ports_open])).toEqual([
      ['FR', 'complete', OPEN],
      ['NL', 'complete', OPEN],
    ]);
    expect(report.regions.differences).toEqual([]);
    expect(report.result.regions).toEqual(['FR', 'NL']);

    const suite = parseXml(readFileSync(junit, 'utf8')).children.find((child) => child.name === 'testsuite')!;
    const sameness = suite.children.filter((child) => child.name === 'testcase' && child.attributes.classname === 'selfscan.same-everywhere');
    expect(sameness.map((testcase) => [testcase.attributes.name, testcase.children.length])).toEqual([['every region sees the same ports', 0]]);
  });

  it('follows the same multi-region scan by polling /v1/fast?regions=FR,NL when a proxy cuts the stream', async () => {
    const proxy = await startCuttingProxy({ host: '127.0.0.1', port: Number(new URL(api.url).port) });
    try {
      const run = await runCheck(
        ['--server', proxy.url, '--source', CUT_HOST, '--no-progress', '--regions', 'NL,FR', '--expect-same-everywhere', '--report', 'json'],
        { env: cleanEnv() },
      );
      expect(proxy.cuts).toBe(1);
      expect(run.stderr).toContain('the event stream was cut before the scan ended; following it by polling /v1/fast?regions=FR,NL');
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as { regions: { vantages: { region: string; status: string }[] } };
      expect(report.regions.vantages.map(({ region, status }) => [region, status])).toEqual([
        ['FR', 'complete'],
        ['NL', 'complete'],
      ]);
    } finally {
      await proxy.close();
    }
  });
});

describe('regions the server refuses', () => {
  it('an unknown region: exit 2 with the server’s invalid_regions reason, which names the known regions', async () => {
    const run = await check(HOST, '--regions', 'NL,UK', '--expect-same-everywhere', '--expect-open', '22');
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      "Error: HTTP 422 Unprocessable Entity from GET /v2/fast?regions=NL,UK: invalid_regions: unknown region UK; this cluster's regions: FR, NL",
    );
    expect(run.stdout).toContain('SKIP  sameness across regions: not decided (no scan result)');
    expect(run.stdout).toContain('Verdict: ERROR: could not decide (exit 2)');
  });

  it('a single-process server: exit 2, saying it scans from one place', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-single-'));
    const single = await startServerProcess(dataDir);
    try {
      const run = await runCheck(['--server', single.url, '--source', HOST, '--no-progress', '--regions', 'all', '--report', 'json']);
      expect(run.code).toBe(2);
      const report = JSON.parse(run.stdout) as { error: { kind: string; message: string }; regions: unknown };
      expect(report.error.kind).toBe('http');
      expect(report.error.message).toMatch(
        /^HTTP 422 Unprocessable Entity from GET \/v2\/fast\?regions=all: invalid_regions: this server runs as a single process and scans from one place/,
      );
      expect(report.regions).toEqual({ asked: 'all', vantages: null, differences: null });
      expect(run.stderr).toContain('selfscan-check: HTTP 422 Unprocessable Entity');
    } finally {
      await killAll([single]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a malformed --regions, or --expect-same-everywhere without it: a usage error, nothing sent', async () => {
    const before = api.logs.filter((line) => line.event === 'request').length;
    expect(before).toBeGreaterThan(0);
    const malformed = await check(HOST, '--regions', 'NL;FR');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(
      /^selfscan-check: --regions: regions must be `all` or region names .*; got "NL;FR"\n\(selfscan-check --help shows the options\)\n$/,
    );
    const alone = await check(HOST, '--expect-same-everywhere');
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--expect-same-everywhere compares what several regions see: pass --regions all or --regions NL,FR');
    expect(api.logs.filter((line) => line.event === 'request')).toHaveLength(before);
  });
});
