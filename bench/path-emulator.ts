// npm run bench:path-emulator — how many packets a second the netns hosts'
// path emulator (test/fixtures/netns-path.ts) carries on this machine
// without losing any of its own: three connect floods (1,000 in flight
// each, test/fixtures/limiter-flood.mjs) to the closed ports of a host
// behind a 50 ms ± 5 ms path without loss, for 5 s. Every SYN should come
// back as an RST, none lost in the emulator's queue (overruns). The scanner
// sends at most ~40,000 probes (~80,000 packets) a second.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

import { createNetnsHost } from '../test/fixtures/netns-host.js';
import { count } from './scanner-figures.js';

const FLOOD = fileURLToPath(new URL('../test/fixtures/limiter-flood.mjs', import.meta.url));
const SECONDS = 5;
const host = await createNetnsHost({ path: { rttMs: 50, jitterMs: 5 }, filtered: null });
try {
  const ports = Array.from({ length: 10000 }, (_, i) => 1000 + i);
  const floods = Array.from({ length: 3 }, () => spawn(process.execPath, [FLOOD], { stdio: ['pipe', 'ignore', 'inherit'] }));
  for (const flood of floods) flood.stdin.write(`${JSON.stringify({ ip: host.ipv4, ports, concurrency: 1000, timeoutMs: 1000 })}\n`);
  await sleep(1000);
  const before = (await host.pathStats())!;
  const started = performance.now();
  await sleep(SECONDS * 1000);
  const after = (await host.pathStats())!;
  const elapsed = (performance.now() - started) / 1000;
  for (const flood of floods) flood.stdin.end();
  const to = (after.to.seen - before.to.seen) / elapsed;
  const from = (after.from.seen - before.from.seen) / elapsed;
  console.log(
    `path emulator, 50 ms ± 5 ms, no loss: ${count(to + from)} packets/s (${count(to)}/s to the host, ${count(from)}/s back; ` +
      `answers ÷ SYNs ${(from / to).toFixed(3)}), overruns ${after.overruns - before.overruns}, at most ${count(after.maxHeld)} held at once`,
  );
} finally {
  await host.close();
}
