// The severity table: the worst rule that applies to an open port speaks.
import { describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import type { AccessFacts, TlsFacts } from '../../src/api/port-facts.js';
import { assessPort } from '../../src/exposure/severity-table.js';
import { tlsFacts } from '../helpers/tls-facts.js';

const open = (port: number, facts?: Port['facts']): Port => ({ port, state: 'open', service: null, banner: null, facts });
const access = (service: AccessFacts['service'], auth_required: boolean): Port['facts'] => ({
  access: { service, auth_required, version: null, evidence: 'x' },
});
const tls = (changes: Partial<TlsFacts>): Port['facts'] => ({ tls: tlsFacts(changes) });

describe('assessPort', () => {
  it('rates control APIs and data stores that serve anyone critical and high, and asking for a password medium', () => {
    expect(assessPort(open(2375, access('docker', false))).severity).toBe('critical');
    for (const service of ['redis', 'mongodb', 'elasticsearch', 'memcached'] as const) {
      expect(assessPort(open(1234, access(service, false)))).toMatchObject({ severity: 'high', why: expect.stringContaining('without credentials') });
      expect(assessPort(open(1234, access(service, true))).severity).toBe('medium');
    }
  });

  it('rates remote desktops, file shares and databases high and cleartext logins medium, by port', () => {
    for (const port of [3389, 5900, 445, 139, 3306, 5432, 1433, 1521]) expect(assessPort(open(port)).severity).toBe('high');
    for (const port of [21, 23]) expect(assessPort(open(port)).severity).toBe('medium');
    expect(assessPort(open(22))).toMatchObject({ severity: 'info', why: expect.stringContaining('22'), fix: expect.stringContaining('22') });
  });

  it('raises a TLS port for an expired, soon expiring, untrusted or misnamed certificate', () => {
    expect(assessPort(open(443, tls({ days_left: -2 })))).toMatchObject({ severity: 'high', why: expect.stringContaining('expired 2 day') });
    expect(assessPort(open(443, tls({ days_left: 3 })))).toMatchObject({ severity: 'medium', why: expect.stringContaining('expires in 3 day') });
    expect(assessPort(open(443, tls({ self_signed: true, trusted: false }))).severity).toBe('low');
    expect(assessPort(open(443, tls({ trusted: false }))).severity).toBe('low');
    expect(assessPort(open(443, tls({ name_matches: false }))).severity).toBe('low');
    expect(assessPort(open(443, tls({}))).severity).toBe('info');
  });

  it('lets the worst rule speak when several apply', () => {
    expect(assessPort(open(3306, tls({ days_left: -1 }))).severity).toBe('high');
    expect(assessPort(open(21, tls({ self_signed: true, trusted: false }))).severity).toBe('medium');
  });
});
