// Reverse lookups against a real DNS server on loopback.
import dgram from 'node:dgram';

import { afterEach, describe, expect, it } from 'vitest';

import { createPtrLookup } from '../../src/scan/ptr-lookup.js';
import { type DnsServer, reverseName, startDnsServer } from '../../support/dns-server.js';

const servers: DnsServer[] = [];

async function start(...args: Parameters<typeof startDnsServer>): Promise<DnsServer> {
  const server = await startDnsServer(...args);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

describe('reverseName', () => {
  it('builds in-addr.arpa and ip6.arpa names', () => {
    expect(reverseName('192.0.2.7')).toBe('7.2.0.192.in-addr.arpa');
    expect(reverseName('2001:db8::1')).toBe(`1.${'0.'.repeat(23)}8.b.d.0.1.0.0.2.ip6.arpa`);
  });
});

describe('createPtrLookup', () => {
  it('finds the name of an IPv4 address', async () => {
    const server = await start({ '192.0.2.7': 'host.example.test' });
    const lookup = createPtrLookup({ servers: [server.address] });
    expect(await lookup('192.0.2.7')).toBe('host.example.test');
    expect(server.queries).toBeGreaterThan(0);
  });

  it('finds the name of an IPv6 address', async () => {
    const server = await start({ '2001:db8::1': 'six.example.test' });
    const lookup = createPtrLookup({ servers: [server.address] });
    expect(await lookup('2001:db8::1')).toBe('six.example.test');
  });

  it('gives null for an address without a record', async () => {
    const server = await start({ '192.0.2.7': 'host.example.test' });
    const lookup = createPtrLookup({ servers: [server.address] });
    expect(await lookup('192.0.2.8')).toBeNull();
    expect(server.queries).toBeGreaterThan(0);
  });

  it('gives null within timeoutMs when the server never answers', async () => {
    const server = await start({ '192.0.2.7': 'host.example.test' }, { silent: true });
    const lookup = createPtrLookup({ servers: [server.address], timeoutMs: 300 });
    const started = performance.now();
    expect(await lookup('192.0.2.7')).toBeNull();
    expect(performance.now() - started).toBeLessThan(300 + 200);
    expect(server.queries).toBeGreaterThan(0);
  });

  it('gives null when nothing listens on the server port', async () => {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const { port } = socket.address();
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    const lookup = createPtrLookup({ servers: [`127.0.0.1:${port}`], timeoutMs: 500 });
    expect(await lookup('192.0.2.7')).toBeNull();
  });
});
