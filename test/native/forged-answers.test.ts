// Answers the scanner must not believe (support/forged-answers-host.ts): an
// on-path attacker beside a host answers every SYN before the host does,
// with SYN-ACKs whose ack is one short, one long, random, or right for
// another probe (the previous SYN seen, three times over; the last earlier
// SYN to the same port, which in a second scan is the first scan's), an
// RST+ACK with a wrong ack, and a port unreachable quoting the SYN with a
// wrong sequence number. The syn engine reads every answer off the wire and
// has only its cookie to tell which are real: one forgery believed makes a
// filtered port open or closed, or an open port closed or filtered. On IPv4
// and IPv6, two scans in a row (the second meets forgeries built from the
// first's probes) must each give every port its true state and the
// listeners their banners, and the forgeries must be shown to have reached
// the scanner's machine: the syn engine counts them among the answers it
// ignored; under the connect engine, which leaves the checks to the kernel,
// the kernel's resets for forged SYN-ACKs came back to the forger, and it
// counted the forged unreachables it refused for their sequence number.
// Needs root, network namespaces and libnetfilter-queue (CI).
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createForgedAnswersHost, type ForgedAnswersHost, type ForgerCounts } from '../../support/forged-answers-host.js';
import type { PortRange } from '../../support/netns-firewall.js';
import { EXACT, FAMILIES, logScan, portList, scanHost, verdictOf } from '../helpers/hostile-scan.js';
import { createTestScanner } from '../helpers/test-scanner.js';

const scanner = createTestScanner();

/** Dropped by the host; the scan covers its first 400 ports. */
const FILTERED: PortRange = { from: 3601, to: 4600 };
/** 1-4000 holds the listeners 22, 25 and 80; 8080 and 40022 are the others. */
const PORTS = portList([1, 4000], 8080, 40022);
const SCANS = 2;

let forged: ForgedAnswersHost | undefined;
beforeAll(async () => {
  forged = await createForgedAnswersHost({ filtered: FILTERED });
});
afterAll(async () => {
  const counts = await forged?.stop();
  console.log(`[forged] the forger's counts at the end: ${JSON.stringify(counts)}`);
});
const host = (): ForgedAnswersHost => {
  if (forged === undefined) throw new Error('the forged-answers host exists only inside tests');
  return forged;
};

/** The engine's counters this file reads; an addon that names no engine runs connect. */
function engineCounters(): { engine: string; answersIgnored: number | undefined } {
  const stats: { engine?: string; answersIgnored?: number } = scanner.stats();
  return { engine: stats.engine ?? 'connect', answersIgnored: stats.answersIgnored };
}

/** TcpExt OutOfWindowIcmps of this namespace: ICMP errors for a TCP socket that the kernel refused for the sequence number they quote. */
function outOfWindowIcmps(): number {
  const [names = [], values = []] = readFileSync('/proc/net/netstat', 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('TcpExt:'))
    .map((line) => line.split(' '));
  const at = names.indexOf('OutOfWindowIcmps');
  if (at < 0) throw new Error('/proc/net/netstat has no TcpExt OutOfWindowIcmps');
  return Number(values[at]);
}

/** `after` less `before`, for the counters a test reads. */
function grown(before: ForgerCounts, after: ForgerCounts, family: 'ipv4' | 'ipv6') {
  const byKind = Object.fromEntries(Object.entries(after.byKind).map(([kind, n]) => [kind, n - before.byKind[kind as keyof ForgerCounts['byKind']]]));
  return {
    synsSeen: after.synsSeen[family] - before.synsSeen[family],
    forgeriesSent: after.forgeriesSent[family] - before.forgeriesSent[family],
    echoesDropped: after.echoesDropped[family] - before.echoesDropped[family],
    sendErrors: after.sendErrors - before.sendErrors,
    byKind,
  };
}

describe.each(FAMILIES)('host with an on-path forger over %s', (family) => {
  it(`gives all ${PORTS.length} ports their true state in ${SCANS} scans in a row, believing no forged answer`, async () => {
    const truth = (port: number) => host().stateOf(port);
    const listeners = host().listeners;
    const before = await host().forgerCounts();
    const engineBefore = engineCounters();
    const refusedBefore = outOfWindowIcmps();

    for (let n = 1; n <= SCANS; n++) {
      const scan = await scanHost(scanner, host(), family, { ports: PORTS, budgetMs: 60_000 }, `forged answers ${family} #${n}`);
      logScan(scan, truth);
      // Soft: the second scan runs, and the forger's counts are checked, even when the first is wrong.
      expect.soft(verdictOf(scan, truth)).toEqual(EXACT);
      expect.soft(scan.summary.portsScanned).toBe(PORTS.length);
      const found = new Map(scan.summary.open.map((p) => [p.port, p]));
      expect
        .soft(listeners.map(({ port }) => ({ port, open: found.has(port), banner: found.get(port)?.banner?.split('\n')[0] ?? null })))
        .toEqual(listeners.map(({ port, banner }) => ({ port, open: true, banner })));
      expect.soft(scan.summary.open).toHaveLength(listeners.length);
    }

    const after = await host().forgerCounts();
    const engineAfter = engineCounters();
    const refused = outOfWindowIcmps() - refusedBefore;
    const forger = grown(before, after, family);
    console.log(
      `[forged] ${family} on the ${engineAfter.engine} engine: forger ${JSON.stringify(forger)}, answersIgnored ${engineBefore.answersIgnored} -> ${engineAfter.answersIgnored}, ICMP errors the kernel refused for their sequence number ${refused}`,
    );

    // Every answered port's answer came after the forger had its SYN, in each scan.
    const answered = PORTS.filter((port) => truth(port) !== 'filtered').length;
    expect(forger.synsSeen).toBeGreaterThanOrEqual(SCANS * answered);
    // Every kind of forgery went out, all that were built.
    expect(forger.sendErrors).toBe(0);
    expect(Object.entries(forger.byKind).filter(([, n]) => n === 0)).toEqual([]);
    // The five that need no other probe, for every SYN.
    expect(forger.forgeriesSent).toBeGreaterThanOrEqual(5 * forger.synsSeen);
    // The second scan's SYN to each port met an answer to the first scan's SYN to it (but where a source port came round again).
    expect(forger.byKind.earlierProbeSamePort).toBeGreaterThanOrEqual(0.9 * PORTS.length);
    // And reached the scanner's machine.
    if (engineAfter.engine === 'syn') {
      expect(engineAfter.answersIgnored).toBeTypeOf('number');
      expect((engineAfter.answersIgnored ?? 0) - (engineBefore.answersIgnored ?? 0)).toBeGreaterThan(0);
    } else {
      expect(forger.echoesDropped).toBeGreaterThan(0);
      expect(refused).toBeGreaterThan(0);
    }
  });
});
