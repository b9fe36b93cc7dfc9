// The TLS facts of real TLS servers on loopback, one per kind of certificate
// (trusted, self-signed, expired, about to expire, for another name), on
// ports where nobody would look for TLS, and the risk each one gets.
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket, type TlsOptions } from 'node:tls';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { gatherFacts } from '../../src/exposure/gather-facts.js';
import { systemTrustRoots } from '../../src/exposure/trust-roots.js';
import { createTestPki, type Issued, type TestPki } from '../../support/test-pki.js';

const IP = '127.26.1.1';
const PTR = 'host.test';

let pki: TestPki;
const servers: Server[] = [];
/** The SNI name each port's server saw last (false: none). */
const seenNames = new Map<number, string | false | null>();

/** A TLS server on IP:port with `issued`, answering each request with `answers[path]` (a whole HTTP response). */
async function serveTls(port: number, issued: Issued, answers: Record<string, string> = {}, options: TlsOptions = {}): Promise<void> {
  const server = createServer({ cert: issued.cert, key: issued.key, ...options }, (socket: TLSSocket) => {
    seenNames.set(port, socket.servername);
    socket.on('error', () => {});
    socket.once('data', (request: Buffer) => {
      const path = request.toString('latin1').split(' ')[1] ?? '';
      socket.end(answers[path] ?? 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
    });
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(port, IP, resolve));
  servers.push(server);
}

function page(title: string): string {
  const body = `<!doctype html><html><head><title>${title}</title></head><body>hi</body></html>`;
  return `HTTP/1.1 200 OK\r\nServer: tiny-tls/1.0\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
}

const open = (port: number): Port => ({ port, state: 'open', service: null, banner: null });

async function factsOf(port: number, options: { ptr?: string | null; trusted?: boolean } = {}): Promise<Port> {
  const found = open(port);
  await gatherFacts(IP, [found], { ptr: options.ptr === undefined ? PTR : options.ptr, trustRoots: options.trusted === false ? [] : [pki.caPem] });
  return found;
}

const certs: Record<string, Issued> = {};

beforeAll(async () => {
  pki = createTestPki();
  certs.trusted = pki.issue({ cn: PTR, sans: [PTR, IP] });
  certs.selfSigned = pki.issue({ cn: PTR, sans: [PTR], selfSigned: true });
  certs.expired = pki.issue({ cn: PTR, sans: [PTR], expired: true });
  certs.soon = pki.issue({ cn: PTR, sans: [PTR], days: 3 });
  certs.otherName = pki.issue({ cn: 'other.test', sans: ['other.test', 'www.other.test'] });
  await serveTls(4443, certs.trusted, { '/': page('Welcome &amp; hello') });
  await serveTls(8444, certs.selfSigned);
  await serveTls(9443, certs.expired);
  await serveTls(10443, certs.soon);
  await serveTls(11443, certs.otherName);
  await serveTls(4444, certs.trusted, {}, { minVersion: 'TLSv1', maxVersion: 'TLSv1', ciphers: 'DEFAULT:@SECLEVEL=0' });
  await serveTls(2376, certs.trusted, { '/version': 'HTTP/1.1 200 OK\r\nContent-Length: 42\r\n\r\n{"ApiVersion":"1.43","Version":"24.0.7"}  ' });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  pki.close();
});

describe('a certificate from a trusted CA, for the PTR name, on port 4443', () => {
  it('reads the session and every certificate fact, with the fingerprint and expiry of the PEM served', async () => {
    const port = await factsOf(4443);
    const x509 = new X509Certificate(certs.trusted!.cert);
    const notAfter = Math.floor(Date.parse(x509.validTo) / 1000);
    expect(port.facts?.tls).toEqual({
      version: 'TLSv1.3',
      cipher: expect.stringMatching(/^TLS_/),
      sni: PTR,
      subject_cn: PTR,
      sans: [PTR, IP],
      issuer: 'selfscan test CA',
      not_after: notAfter,
      days_left: 89,
      self_signed: false,
      trusted: true,
      name_matches: true,
      sha256: x509.fingerprint256.replaceAll(':', '').toLowerCase(),
    });
    expect(seenNames.get(4443)).toBe(PTR);
    expect(port.risk?.severity).toBe('info');
  });

  it('asks GET / over the same TLS and reads the page', async () => {
    const port = await factsOf(4443);
    expect(port.facts?.http).toEqual({ tls: true, status: 200, server: 'tiny-tls/1.0', title: 'Welcome & hello', location: null, hsts: false });
  });

  it('is trusted by default when NODE_EXTRA_CA_CERTS names the CA, as Node does, besides the system bundle', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'selfscan-extra-ca-'));
    const before = process.env.NODE_EXTRA_CA_CERTS;
    try {
      writeFileSync(join(dir, 'extra.pem'), pki.caPem);
      process.env.NODE_EXTRA_CA_CERTS = join(dir, 'extra.pem'); // read once, on first use: this file's first default call
      const found = open(4443);
      await gatherFacts(IP, [found], { ptr: PTR });
      expect(found.facts?.tls?.trusted).toBe(true);
      const roots = systemTrustRoots();
      expect(roots.length).toBeGreaterThan(50); // Debian's bundle (or Node's own)
      expect(roots.at(-1)).toBe(pki.caPem.trim());
    } finally {
      if (before === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
      else process.env.NODE_EXTRA_CA_CERTS = before;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is not trusted by a CA store without the test CA, and rates that low', async () => {
    const port = await factsOf(4443, { trusted: false });
    expect(port.facts?.tls?.trusted).toBe(false);
    expect(port.risk?.severity).toBe('low');
  });

  it('sends no SNI and checks no name when the address has no PTR name, nor SNI for an IP', async () => {
    const port = await factsOf(4443, { ptr: null });
    expect(port.facts?.tls?.sni).toBeNull();
    expect(port.facts?.tls?.name_matches).toBeNull();
    expect(seenNames.get(4443)).toBe(false);
    const byIp = await factsOf(4443, { ptr: IP });
    expect(byIp.facts?.tls?.sni).toBeNull();
    expect(seenNames.get(4443)).toBe(false);
  });
});

it('finds a self-signed certificate: not trusted, rated low', async () => {
  const port = await factsOf(8444);
  expect(port.facts?.tls).toMatchObject({ self_signed: true, trusted: false, name_matches: true, issuer: PTR, subject_cn: PTR });
  expect(port.risk).toMatchObject({ severity: 'low', why: expect.stringContaining('self-signed') });
});

it('finds an expired certificate: negative days left, rated high', async () => {
  const port = await factsOf(9443);
  const tls = port.facts!.tls!;
  expect(tls.days_left === -1 || tls.days_left === -2).toBe(true); // expired a day (and the test's seconds) ago
  expect(tls.trusted).toBe(false);
  expect(port.risk?.severity).toBe('high');
});

it('finds a certificate that expires in 3 days: rated medium', async () => {
  const port = await factsOf(10443);
  expect([2, 3]).toContain(port.facts?.tls?.days_left);
  expect(port.facts?.tls?.trusted).toBe(true);
  expect(port.risk).toMatchObject({ severity: 'medium', why: expect.stringContaining('expires in') });
});

it('uses the injected clock for days left', async () => {
  const found = open(4443);
  const notAfterMs = Date.parse(new X509Certificate(certs.trusted!.cert).validTo);
  await gatherFacts(IP, [found], { ptr: PTR, trustRoots: [pki.caPem], now: () => notAfterMs + 10 * 86_400_000 });
  expect(found.facts?.tls?.days_left).toBe(-10);
  expect(found.risk?.severity).toBe('high');
});

it('finds a certificate for another name than the PTR name: trusted, but rated low', async () => {
  const port = await factsOf(11443);
  expect(port.facts?.tls).toMatchObject({ name_matches: false, trusted: true, subject_cn: 'other.test', sans: ['other.test', 'www.other.test'] });
  expect(port.risk).toMatchObject({ severity: 'low', why: expect.stringContaining(`not valid for ${PTR}`) });
});

it('still reads a server that speaks only TLS 1.0', async () => {
  const port = await factsOf(4444);
  expect(port.facts?.tls).toMatchObject({ version: 'TLSv1', trusted: true, subject_cn: PTR });
});

it('asks the Docker API for its version over TLS, and rates it critical when it answers', async () => {
  const port = await factsOf(2376);
  expect(port.facts?.tls?.trusted).toBe(true);
  expect(port.facts?.http?.status).toBe(404);
  expect(port.facts?.access).toEqual({
    service: 'docker',
    auth_required: false,
    version: '24.0.7',
    evidence: 'GET /version answered API version 1.43 without credentials',
  });
  expect(port.risk?.severity).toBe('critical');
});
