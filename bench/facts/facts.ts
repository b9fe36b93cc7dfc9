// npm run bench:facts — what the facts stage adds to a scan (issue 26).
//
// Two `selfscan serve` processes from the build, alike but for
// exposure.facts (on in one, off in the other; fingerprints off in both),
// scan the same loopback hosts in turns: a fast scan of a host with six
// open ports (TLS, HTTP, SSH, a real Redis, two silent ones) and a deep
// scan of a host with 200 (fifty each of TLS, HTTP, SSH banners, silent).
// The figure is each scan's own duration_ms (from its start to its end,
// facts included); what facts add is the median with them minus the median
// without, same run. Every scan with facts is checked: the facts each
// listener should give are there. Exits 1 when a check fails.
//
//   --fast-runs N   fast scans per server (default 10)
//   --deep-runs N   deep scans per server (default 3)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

import type { ScanType } from '../../src/api/scan-type.js';
import { callerFetch, pollUntilFinal } from '../../support/callers.js';
import { type ServerProcess, startServerProcess } from '../../support/server-process.js';
import { BUILT_CLI } from '../lib/built.js';
import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';
import { type BenchHosts, DEEP_HOST, FAST_HOST, FAST_PORTS, startBenchHosts } from './facts-hosts.js';

const { values } = parseArgs({ options: { 'fast-runs': { type: 'string', default: '10' }, 'deep-runs': { type: 'string', default: '3' } } });
const fastRuns = Number(values['fast-runs']);
const deepRuns = Number(values['deep-runs']);

const GOALS_MS: Readonly<Record<ScanType, number>> = { fast: 300, deep: 3000, udp: 3000 };

interface PortResult {
  port: number;
  facts?: { tls?: unknown; http?: { title: string | null }; ssh?: unknown; access?: { service: string; auth_required: boolean } };
  risk?: { severity: string };
}
interface Result {
  status: string;
  duration_ms: number;
  ports_open: PortResult[];
}

/** One scan of `host` through `server`; its result. */
async function scan(server: ServerProcess, host: string, scanType: ScanType): Promise<Result> {
  const fetch = callerFetch(host);
  const post = await fetch(`${server.url}/v1/${scanType}`, { method: 'POST' });
  if (post.status !== 200) throw new Error(`POST /v1/${scanType} answered ${post.status}`);
  return (await pollUntilFinal(fetch, `${server.url}/v1/${scanType}`, 600_000)) as unknown as Result;
}

/** What is wrong with a result scanned with facts on; empty when nothing. */
function factProblems(result: Result, scanType: ScanType, hosts: BenchHosts): string[] {
  const problems: string[] = [];
  const byPort = new Map(result.ports_open.map((port) => [port.port, port]));
  const expect = (port: number, ok: (entry: PortResult) => boolean, what: string) => {
    const entry = byPort.get(port);
    if (entry === undefined || !ok(entry)) problems.push(`port ${port}: ${what} missing`);
  };
  if (result.status !== 'complete') problems.push(`status ${result.status}`);
  if (scanType === 'fast') {
    expect(FAST_PORTS.tls, (p) => p.facts?.tls !== undefined, 'tls facts');
    expect(FAST_PORTS.http, (p) => p.facts?.http?.title === 'Facts benchmark', 'http title');
    expect(FAST_PORTS.ssh, (p) => p.facts?.ssh !== undefined, 'ssh facts');
    expect(FAST_PORTS.redis, (p) => p.facts?.access?.service === 'redis' && !p.facts.access.auth_required, 'redis access');
    for (const port of FAST_PORTS.silent) expect(port, (p) => p.risk !== undefined, 'risk');
  } else {
    const [tls, http, ssh] = [0, 50, 100].map((from) => hosts.deepPorts.slice(from, from + 50));
    for (const port of tls!) expect(port, (p) => p.facts?.tls !== undefined, 'tls facts');
    for (const port of http!) expect(port, (p) => p.facts?.http?.title === 'Facts benchmark', 'http title');
    for (const port of ssh!) expect(port, (p) => p.facts?.ssh !== undefined, 'ssh facts');
    for (const port of hosts.deepPorts) expect(port, (p) => p.risk !== undefined, 'risk');
  }
  return problems;
}

const dirs: string[] = [];
const servers: ServerProcess[] = [];
const hosts = await startBenchHosts();
let failed = false;
try {
  const start = async (facts: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), 'selfscan-bench-facts-'));
    dirs.push(dir);
    const server = await startServerProcess(dir, { exposure: { facts, fingerprintDays: 0 } }, [BUILT_CLI]);
    servers.push(server);
    return server;
  };
  const withFacts = await start(true);
  const without = await start(false);
  const lines: string[] = [];
  for (const [scanType, host, runs] of [
    ['fast', FAST_HOST, fastRuns],
    ['deep', DEEP_HOST, deepRuns],
  ] as const) {
    const on: number[] = [];
    const off: number[] = [];
    for (let run = 0; run < runs; run++) {
      // In turns, each server first every other round, so neither always scans a host the other just warmed.
      const order = run % 2 === 0 ? [true, false] : [false, true];
      for (const facts of order) {
        const result = await scan(facts ? withFacts : without, host, scanType);
        if (facts) {
          const problems = factProblems(result, scanType, hosts);
          if (problems.length > 0) {
            failed = true;
            console.error(`${scanType} scan with facts, run ${run + 1}: ${problems.slice(0, 10).join('; ')}`);
          }
          on.push(result.duration_ms);
        } else {
          off.push(result.duration_ms);
        }
      }
    }
    const added = median(on) - median(off);
    const openCount = scanType === 'fast' ? 6 : hosts.deepPorts.length;
    const line =
      `${scanType} scan, ${openCount} open ports: with facts median ${median(on)} ms (runs ${on.join(', ')}), ` +
      `without median ${median(off)} ms (runs ${off.join(', ')}); facts add ${added} ms ` +
      `(goal ≤ ${GOALS_MS[scanType]} ms): ${added <= GOALS_MS[scanType] ? 'met' : 'NOT met'}`;
    console.log(line);
    lines.push(`- ${line}`);
  }
  recordSection('facts', 'Facts: what probing open ports adds to a scan (npm run bench:facts)', [
    'Two `selfscan serve` processes from the build, alike but for `exposure.facts` (fingerprints off in both), scan the same loopback hosts in turns: ' +
      `${fastRuns} fast scans of a host with 6 open ports (TLS with a test CA's certificate, HTTP with a title, an SSH banner, a real redis-server without a password, two silent listeners) ` +
      `and ${deepRuns} deep scans of a host with 200 (50 each of TLS, HTTP, SSH banners and silent listeners). ` +
      "The figure is the result's `duration_ms`; what facts add is the median with them minus the median without. Every result with facts was checked for the facts its listeners give" +
      (failed ? ': SOME CHECKS FAILED (see the run).' : ': all present.'),
    '',
    ...lines,
  ]);
} finally {
  for (const server of servers) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  await hosts.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
