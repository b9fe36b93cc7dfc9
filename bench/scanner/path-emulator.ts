// npm run bench:path-emulator — how many packets a second the netns hosts'
// path emulator (support/netns-path.ts) carries on this machine
// without losing any of its own, under the heaviest load the tests put on
// it: first three connect floods (1,000 in flight each,
// support/limiter-flood.mjs) to the closed ports of a host behind a
// 50 ms ± 5 ms path without loss, for 5 s, where every SYN should come back
// as an RST; then our own deep scan of a closed host behind the same path,
// the emulator's packets counted over the scan. Overruns are packets the
// kernel could not queue to it: none means it kept up.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { createNetnsHost, type NetnsHost } from '../../support/netns-host.js';
import type { PathStats } from '../../support/netns-path.js';
import { recordSection } from '../lib/results-file.js';
import { runOurs } from './scan-runners.js';
import { count, seconds } from './scanner-figures.js';

const FLOOD = fileURLToPath(new URL('../../support/limiter-flood.mjs', import.meta.url));
const SECONDS = 5;
const PATH = { rttMs: 50, jitterMs: 5 } as const;

/** Packets/s both ways between two readings `ms` apart, and the emulator's own losses. */
function carried(before: PathStats, after: PathStats, ms: number): string {
  const to = (after.to.seen - before.to.seen) / (ms / 1000);
  const from = (after.from.seen - before.from.seen) / (ms / 1000);
  return (
    `${count(to + from)} packets/s (${count(to)}/s to the host, ${count(from)}/s back; answers ÷ SYNs ${(from / to).toFixed(3)}), ` +
    `overruns ${after.overruns - before.overruns}, at most ${count(after.maxHeld)} held at once`
  );
}

async function withHost<T>(fn: (host: NetnsHost) => Promise<T>): Promise<T> {
  const host = await createNetnsHost({ path: { ...PATH }, filtered: null });
  try {
    return await fn(host);
  } finally {
    await host.close();
  }
}

const floodLine = await withHost(async (host) => {
  const ports = Array.from({ length: 10000 }, (_, i) => 1000 + i);
  const floods = Array.from({ length: 3 }, () => spawn(process.execPath, [FLOOD], { stdio: ['pipe', 'ignore', 'inherit'] }));
  for (const flood of floods) flood.stdin.write(`${JSON.stringify({ ip: host.ipv4, ports, concurrency: 1000, timeoutMs: 1000 })}\n`);
  await sleep(1000);
  const before = (await host.pathStats())!;
  const started = performance.now();
  await sleep(SECONDS * 1000);
  const after = (await host.pathStats())!;
  const elapsed = performance.now() - started;
  for (const flood of floods) flood.stdin.end();
  return `three connect floods for ${SECONDS} s: ${carried(before, after, elapsed)}`;
});
console.log(floodLine);

const scanLine = await withHost(async (host) => {
  const before = (await host.pathStats())!;
  const scan = await runOurs(host.ipv4, (port) => host.stateOf(port), true, 'auto', 'connect');
  const after = (await host.pathStats())!;
  return `our deep scan (${seconds(scan.ms)}, wrong ${count(scan.wrong)}): ${carried(before, after, scan.ms)} over its whole process`;
});
console.log(scanLine);

recordSection('path-emulator', 'Path emulator: what it carries (npm run bench:path-emulator)', [
  `The netns hosts' path emulator (support/path-emulator/path-delay.c via NFQUEUE in a router namespace in front of the host) behind a ${PATH.rttMs} ms ± ${PATH.jitterMs} ms path without loss, a closed host; scanner, floods and emulator share the machine's cores.`,
  '',
  `- ${floodLine}`,
  `- ${scanLine}`,
]);
console.log('bench/RESULTS.md: path-emulator section rewritten');
