// The syn engine's way out (native/core/link_hop_linux.cc): SYNs to a target
// behind an Ethernet next hop go straight to the device once the kernel has
// resolved that neighbour (the first SYNs, through IP, make it resolve);
// SYNs to this host's own addresses go through IP. Exact either way.
import { execFileSync } from 'node:child_process';

import { expect, it } from 'vitest';

import { createScanner } from '../../src/native/scanner.js';
import { ALL_PORTS, mismatches, statesOf } from '../../support/scan-compare.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';
import { testPoller } from '../helpers/test-scanner.js';

const scanner = createScanner({ poller: testPoller(), engine: 'syn' });
const host = useNetnsHost();

/** SYNs sent each way while `work` runs. */
async function sentWhile(work: () => Promise<unknown>): Promise<{ device: number; ip: number }> {
  const before = scanner.stats();
  await work();
  const after = scanner.stats();
  return { device: after.synsSentToDevice - before.synsSentToDevice, ip: after.synsSentThroughIp - before.synsSentThroughIp };
}

it.each(['ipv4', 'ipv6'] as const)('over %s, hands a deep scan to the device once the neighbour resolves, every port exact', async (family) => {
  const ip = host()[family];
  // No neighbour entry: the scan's first SYNs go through IP, which resolves it.
  execFileSync('ip', ['neigh', 'flush', 'to', ip]);
  let summary: Awaited<ReturnType<typeof scanner.scan>['done']> | undefined;
  const sent = await sentWhile(async () => {
    summary = await scanner.scan({ ip, ports: [...ALL_PORTS] }).done;
  });
  expect(summary?.status).toBe('complete');
  expect(mismatches(statesOf(summary!, ALL_PORTS), (port) => host().stateOf(port))).toEqual([]);
  expect(sent.ip, 'SYNs through IP while the neighbour was unresolved').toBeGreaterThan(0);
  expect(sent.ip).toBeLessThan(1000);
  expect(sent.device + sent.ip).toBeGreaterThanOrEqual(65535);
});

it('sends to its own addresses through IP, every port answered', async () => {
  const ports = Array.from({ length: 200 }, (_, i) => 30000 + i);
  for (const ip of ['127.0.0.1', '::1']) {
    const sent = await sentWhile(async () => {
      const summary = await scanner.scan({ ip, ports }).done;
      expect(summary.status).toBe('complete');
      expect(summary.filtered).toEqual([]); // loopback answers every SYN
      expect(summary.closed + summary.open.length).toBe(ports.length);
    });
    expect(sent.device).toBe(0);
    expect(sent.ip).toBeGreaterThanOrEqual(ports.length);
  }
});
