import { describe, expect, it } from 'vitest';

import type { UdpFacts } from '../../src/api/port-facts.js';
import type { UdpService } from '../../src/api/udp-services.js';
import { assessPort } from '../../src/exposure/severity-table.js';
import { assessUdpPort } from '../../src/exposure/udp-severity.js';

/** What a port of `service` answered: its details, and the bytes each way. */
function facts(service: UdpService, details: UdpFacts['details'], sent = 40, received = 40): UdpFacts {
  return { service, bytes_sent: sent, bytes_received: received, amplification: received / sent, evidence: ['probe: answered'], details };
}

const severity = (port: number, udp: UdpFacts) => assessUdpPort(port, udp).severity;

describe('assessUdpPort', () => {
  it('calls memcached on UDP critical', () => {
    expect(severity(11211, facts('memcached', { version: '1.6.18' }))).toBe('critical');
  });

  it('calls a DNS server that resolves for strangers high, and one that does not info', () => {
    const open = assessUdpPort(53, facts('dns', { recursive: true }));
    expect(open.severity).toBe('high');
    expect(open.why).toMatch(/open resolver/);
    expect(severity(53, facts('dns', { recursive: false }))).toBe('info');
  });

  it('ranks NTP by what it answers: monlist high, mode 6 medium, a plain client answer info', () => {
    expect(severity(123, facts('ntp', { mode7: true, mode6: true }))).toBe('high');
    expect(severity(123, facts('ntp', { mode6: true }))).toBe('medium');
    expect(severity(123, facts('ntp', { stratum: 8 }))).toBe('info');
  });

  it('raises any service that answers with many times the bytes it was sent', () => {
    expect(severity(5060, facts('sip', {}, 100, 100))).toBe('info');
    const medium = assessUdpPort(5060, facts('sip', {}, 100, 600));
    expect(medium.severity).toBe('medium');
    expect(medium.why).toMatch(/6\.0×/);
    expect(severity(1194, facts('openvpn', {}, 10, 600))).toBe('high');
  });

  it('keeps the worst of the service rule and the amplification rule', () => {
    expect(severity(11211, facts('memcached', {}, 15, 1_400))).toBe('critical');
  });

  it('is the row assessPort reads for a port with UDP facts', () => {
    const port = { port: 53, state: 'open' as const, service: 'dns', banner: null, facts: { udp: facts('dns', { recursive: true }) } };
    expect(assessPort(port)).toStrictEqual(assessUdpPort(53, port.facts.udp));
  });
});
