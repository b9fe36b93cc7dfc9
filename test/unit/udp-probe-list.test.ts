// The udp scan's fixed list: one probe per port of UDP_PORTS, in that
// order, each a known service with small requests, and every reader total
// (never throws, whatever bytes a hostile server sends).
import { randomBytes } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { UDP_PORTS } from '../../src/api/scan-ports.js';
import { UDP_SERVICES } from '../../src/udp/probes/udp-probe.js';
import { UDP_PROBES } from '../../src/udp/udp-probes.js';

describe('UDP_PROBES', () => {
  it('has one probe for each port the udp scan covers, in order, each a different service', () => {
    expect(UDP_PROBES.map((probe) => probe.port)).toEqual(UDP_PORTS);
    expect(new Set(UDP_PROBES.map((probe) => probe.service)).size).toBe(UDP_PROBES.length);
    for (const probe of UDP_PROBES) expect(UDP_SERVICES).toContain(probe.service);
  });

  it('sends small requests: nothing an amplifier check should itself amplify', () => {
    for (const probe of UDP_PROBES) {
      expect(probe.requests.length, probe.service).toBeGreaterThan(0);
      for (const request of probe.requests) {
        expect(request.name.length, probe.service).toBeGreaterThan(0);
        expect(request.bytes.length, `${probe.service}: ${request.name}`).toBeGreaterThan(0);
        expect(request.bytes.length, `${probe.service}: ${request.name}`).toBeLessThanOrEqual(512);
      }
    }
  });

  it('reads any bytes without throwing', () => {
    for (const probe of UDP_PROBES) {
      for (let round = 0; round < 200; round++) {
        const reply = new Uint8Array(randomBytes(round % 80));
        for (let request = 0; request < probe.requests.length; request++) expect(() => probe.read(request, reply), probe.service).not.toThrow();
      }
      // Its own request echoed back (a reflector that answers with what it got) is read without throwing too.
      for (const request of probe.requests) expect(() => probe.read(0, request.bytes)).not.toThrow();
    }
  });
});
