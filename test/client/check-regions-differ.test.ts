// `selfscan check --regions all --expect-same-everywhere` where the regions
// really see differently: scanner nodes of NL and FR, each a `selfscan
// serve` process in its region's network namespace with its own source
// address (support/region-namespaces.ts), and a target host whose firewall
// drops 8080 from FR only. The check runs on the target, as it would on a
// server (inside the target's namespace), calling the API node on the root
// namespace's end of the target's link. It fails naming 8080 and the
// regions on each side, in the text and SARIF reports. Requires root.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, expect, it } from 'vitest';

import { killAll, startNode } from '../../support/cluster-nodes.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import { createRegionNamespaces, type RegionNamespaces } from '../../support/region-namespaces.js';
import type { ServerProcess } from '../../support/server-process.js';
import { type CheckRun, runCheck } from '../helpers/check-cli.js';
import { sarifErrors } from '../helpers/sarif-validator.js';

let redis: RedisServer;
let fixture: RegionNamespaces;
const nodes: ServerProcess[] = [];
let api: ServerProcess;
const out = mkdtempSync(join(tmpdir(), 'selfscan-check-differ-'));

/** The root namespace's end of the target's /30 link: the target's address less one (netns-host.ts puts the host at .2, the root at .1). */
function rootEndOf(address: string): string {
  const octets = address.split('.').map(Number);
  octets[3]! -= 1;
  return octets.join('.');
}

beforeAll(async () => {
  redis = await startRedisServer();
  fixture = await createRegionNamespaces({
    regions: ['NL', 'FR'],
    target: { listenerPorts: [22, 8080], filtered: null },
    rules: [{ region: 'FR', ports: { from: 8080, to: 8080 }, answer: 'drop' }],
  });
  for (const { region, place } of fixture.regions) nodes.push(await startNode(redis.path, { role: 'scanner', region, place }));
  // Reachable from the target's namespace: the check connects from the target's own address, which the node scans.
  api = await startNode(redis.path, { role: 'api', config: { chunkWindow: 4 }, place: { host: rootEndOf(fixture.target.ipv4) } });
  nodes.push(api);
}, 60_000);

afterAll(async () => {
  await killAll(nodes);
  await fixture?.close();
  await redis?.close();
  rmSync(out, { recursive: true, force: true });
});

/** Runs selfscan-check ARGS inside the target's namespace, as on the server it checks. */
const checkOnTarget = (args: string[]): Promise<CheckRun> => runCheck(args, { prefix: ['ip', 'netns', 'exec', fixture.target.name] });

it('fails naming the port open from NL and filtered from FR; the union still has it open', async () => {
  const sarifPath = join(out, 'check.sarif');
  const run = await checkOnTarget([
    '--server',
    api.url,
    '--no-progress',
    '--regions',
    'all',
    '--expect-same-everywhere',
    '--expect-open',
    '22,8080',
    '--report',
    'text',
    '--report',
    `sarif=${sarifPath}`,
  ]);
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(run.stdout).toContain(`fast scan of ${fixture.target.ipv4} from FR, NL by ${api.url}: complete`);
  expect(run.stdout).toMatch(
    /^ {2}FR {2}complete in [\d.]+ m?s; open: 22\n {2}NL {2}complete in [\d.]+ m?s; open: 22, 8080\nDifferences:\n {2}port 8080: open from NL; filtered from FR\n/m,
  );
  expect(run.stdout).toContain('PASS  port 8080 is open');
  expect(run.stdout).toContain('FAIL  port 8080: open from NL; filtered from FR');
  expect(run.stdout).toContain('Verdict: FAIL: 1 of 3 checks failed (exit 1)');

  const sarif = JSON.parse(readFileSync(sarifPath, 'utf8')) as { runs: { results: { ruleId: string; properties: Record<string, unknown> }[] }[] };
  expect(sarifErrors(sarif)).toEqual([]);
  expect(sarif.runs[0]!.results.map(({ ruleId, properties }) => [ruleId, properties.port, properties.regions])).toEqual([
    ['same-everywhere', 8080, { open: ['NL'], filtered: ['FR'], closed: [], unknown: [] }],
  ]);
}, 90_000);
