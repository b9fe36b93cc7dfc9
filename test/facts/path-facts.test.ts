// Facts across a far path: a network-namespace host behind a 300 ms round
// trip (support/netns-path.ts), over IPv4 and IPv6. Each reply wait follows
// the path (four times the probe's own connect time), so the HTTP answer
// that comes a round trip after the request, longer than the 200 ms floor,
// is still read; the silent port costs its wait, and the call stays within
// its cap.
import { performance } from 'node:perf_hooks';

import { expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { FACTS_CAP_MS, gatherFacts } from '../../src/exposure/gather-facts.js';
import { REPLY_FLOOR_MS } from '../../src/exposure/probe-connection.js';
import { useNetnsHost } from '../helpers/netns-host-hooks.js';

const RTT_MS = 300;
const host = useNetnsHost({ listenerPorts: [22, 80, 8080], filtered: null, path: { rttMs: RTT_MS } });

/** The open ports as the sweep reports them from the fixture's listeners. */
function swept(): Port[] {
  return [
    { port: 22, state: 'open', service: 'ssh', banner: 'SSH-2.0-selfscan_fixture' },
    { port: 80, state: 'open', service: 'http', banner: 'HTTP/1.0 200 OK\nServer: selfscan-fixture\nContent-Length: 2\n\nok' },
    { port: 8080, state: 'open', service: 'http-alt', banner: null },
  ];
}

it.each(['ipv4', 'ipv6'] as const)('reads an answer across a 300 ms round trip over %s, past the 200 ms floor, within the cap', async (family) => {
  expect(RTT_MS).toBeGreaterThan(REPLY_FLOOR_MS); // else this test proves nothing
  const ports = swept();
  const started = performance.now();
  await gatherFacts(host()[family], ports, { ptr: null });
  const elapsed = performance.now() - started;
  const [ssh, http, silent] = ports;
  expect(ssh!.facts).toStrictEqual({ ssh: { protocol: '2.0', software: 'selfscan_fixture', comment: null } });
  expect(http!.facts?.http).toStrictEqual({ tls: false, status: 200, server: 'selfscan-fixture', title: null, location: null, hsts: false });
  expect(silent!.facts).toBeUndefined();
  expect(ports.map((port) => port.risk?.severity)).toStrictEqual(['info', 'info', 'info']);
  expect(elapsed).toBeGreaterThan(RTT_MS * 2); // connect, then the request's round trip
  expect(elapsed).toBeLessThan(FACTS_CAP_MS + 200);
});
