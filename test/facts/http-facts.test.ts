// The HTTP facts of real HTTP servers on loopback (a page with a title, a
// redirect with HSTS, a chunked page), the Docker Engine API and
// Elasticsearch recognised from how they answer, with and without
// credentials, and the ports where nothing is sent at all.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { gatherFacts } from '../../src/exposure/gather-facts.js';
import { listenRaw, type RawListener } from '../helpers/raw-listener.js';

const IP = '127.26.2.1';
const PTR = 'web.test';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

const servers: Server[] = [];
const seen = new Map<number, Seen[]>();

/** An HTTP server on IP:port; `answer` writes the response to each request. */
async function serveHttp(port: number, answer: (url: string, response: ServerResponse) => void): Promise<void> {
  const server = createServer((request, response) => {
    seen.set(port, [...(seen.get(port) ?? []), { method: request.method!, url: request.url!, headers: request.headers }]);
    answer(request.url!, response);
  });
  server.on('clientError', (_error, socket) => socket.destroy()); // a TLS ClientHello is not HTTP
  await new Promise<void>((resolve) => server.listen(port, IP, resolve));
  servers.push(server);
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const open = (port: number, banner: string | null): Port => ({ port, state: 'open', service: null, banner });

async function factsOf(port: number, banner: string | null): Promise<Port> {
  const found = open(port, banner);
  await gatherFacts(IP, [found], { ptr: PTR, trustRoots: [] });
  return found;
}

let greeter: RawListener;

beforeAll(async () => {
  await serveHttp(8080, (_url, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html', Server: 'test-http/2.4', 'Content-Length': '64' });
    response.end('<html><head><title>\n  Shop &amp; Co\t</title></head></html>'.padEnd(64));
  });
  await serveHttp(80, (_url, response) => {
    response.writeHead(301, { Location: `https://${PTR}/`, 'Strict-Transport-Security': 'max-age=63072000', 'Content-Length': '0' });
    response.end();
  });
  await serveHttp(8000, (_url, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' }); // no length: chunked
    response.write('<html><head><ti');
    setTimeout(() => response.end('tle>Chunked page</title></head></html>'), 20);
  });
  const dockerVersion = { Version: '24.0.7', ApiVersion: '1.43', MinAPIVersion: '1.12', Os: 'linux', Arch: 'amd64' };
  await serveHttp(2375, (url, response) =>
    url === '/version' ? json(response, 200, dockerVersion, { 'Api-Version': '1.43' }) : json(response, 404, { message: 'page not found' }),
  );
  await serveHttp(7777, (url, response) => (url === '/version' ? json(response, 200, dockerVersion) : json(response, 404, { message: 'page not found' })));
  await serveHttp(2377, (_url, response) => json(response, 403, { message: 'authorization denied by plugin' }, { Server: 'Docker/24.0.7 (linux)' }));
  await serveHttp(9200, (url, response) =>
    url === '/'
      ? json(response, 200, { name: 'node-1', cluster_name: 'logs', version: { number: '8.15.0' }, tagline: 'You Know, for Search' })
      : json(response, 404, {}),
  );
  await serveHttp(9201, (_url, response) =>
    json(response, 401, { error: { type: 'security_exception' }, status: 401 }, { 'WWW-Authenticate': 'Basic realm="security" charset="UTF-8"' }),
  );
  await serveHttp(8888, (_url, response) => json(response, 401, {}, { 'WWW-Authenticate': 'Basic realm="admin"' }));
  greeter = await listenRaw(IP, 2525, (socket) => socket.end('220 mail.test ESMTP\r\n'));
});

afterAll(async () => {
  await greeter.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('a page', () => {
  it('reads status, Server and the title (entities decoded, white space collapsed), over a clear GET / with our Host and User-Agent', async () => {
    seen.delete(8080);
    const port = await factsOf(8080, 'HTTP/1.1 200 OK');
    expect(port.facts).toEqual({ http: { tls: false, status: 200, server: 'test-http/2.4', title: 'Shop & Co', location: null, hsts: false } });
    expect(port.risk?.severity).toBe('info');
    const root = seen.get(8080)!.find((request) => request.url === '/')!;
    expect(root.method).toBe('GET');
    expect(root.headers).toMatchObject({ host: `${PTR}:8080`, 'user-agent': 'selfscan', connection: 'close' });
    expect(
      seen
        .get(8080)!
        .map((request) => `${request.method} ${request.url}`)
        .sort(),
    ).toEqual(['GET /', 'GET /version']);
  });

  it('sends the address as Host when the PTR name is not a host name', async () => {
    seen.delete(8080);
    const found = open(8080, 'HTTP/1.1 200 OK');
    await gatherFacts(IP, [found], { ptr: 'evil.test\r\nX-Injected: 1', trustRoots: [] });
    expect(found.facts?.http?.status).toBe(200);
    const root = seen.get(8080)!.find((request) => request.url === '/')!;
    expect(root.headers.host).toBe(`${IP}:8080`);
    expect(root.headers['x-injected']).toBeUndefined();
  });

  it('reads a redirect and HSTS', async () => {
    const port = await factsOf(80, 'HTTP/1.1 301 Moved Permanently');
    expect(port.facts?.http).toEqual({ tls: false, status: 301, server: null, title: null, location: `https://${PTR}/`, hsts: true });
    expect(seen.get(80)!.find((request) => request.url === '/')!.headers.host).toBe(PTR);
  });

  it('reads the title of a chunked page', async () => {
    const port = await factsOf(8000, null);
    expect(port.facts?.http?.title).toBe('Chunked page');
  });
});

describe('the Docker Engine API', () => {
  it('answering /version without credentials is critical, with its version', async () => {
    const port = await factsOf(2375, 'HTTP/1.0 404 Not Found');
    expect(port.facts?.access).toEqual({
      service: 'docker',
      auth_required: false,
      version: '24.0.7',
      evidence: 'GET /version answered API version 1.43 without credentials',
    });
    expect(port.facts?.http?.status).toBe(404);
    expect(port.risk?.severity).toBe('critical');
  });

  it('is found on any port that answered HTTP', async () => {
    const port = await factsOf(7777, 'HTTP/1.0 404 Not Found');
    expect(port.facts?.access?.service).toBe('docker');
    expect(port.risk?.severity).toBe('critical');
  });

  it('refusing /version is medium', async () => {
    const port = await factsOf(2377, 'HTTP/1.1 403 Forbidden\nServer: Docker/24.0.7 (linux)');
    expect(port.facts?.access).toMatchObject({ service: 'docker', auth_required: true, version: null });
    expect(port.risk?.severity).toBe('medium');
  });
});

describe('Elasticsearch', () => {
  it('answering GET / with its cluster without credentials is high, with its version', async () => {
    const port = await factsOf(9200, null);
    expect(port.facts?.access).toMatchObject({ service: 'elasticsearch', auth_required: false, version: '8.15.0' });
    expect(port.risk?.severity).toBe('high');
  });

  it('asking for credentials from its security realm is medium', async () => {
    const port = await factsOf(9201, 'HTTP/1.1 401 Unauthorized');
    expect(port.facts?.access).toMatchObject({ service: 'elasticsearch', auth_required: true, version: null });
    expect(port.facts?.http?.status).toBe(401);
    expect(port.risk?.severity).toBe('medium');
  });

  it('is not claimed for another 401', async () => {
    const port = await factsOf(8888, 'HTTP/1.1 401 Unauthorized');
    expect(port.facts?.access).toBeUndefined();
    expect(port.facts?.http?.status).toBe(401);
  });
});

describe('ports where nothing is sent', () => {
  it('a cleartext greeting (SMTP) gets no connection', async () => {
    const port = await factsOf(2525, '220 mail.test ESMTP');
    expect(greeter.accepted).toBe(0);
    expect(port.facts).toBeUndefined();
    expect(port.risk?.severity).toBe('info');
  });

  it('SSH is read from the banner alone; closed and filtered ports are left alone', async () => {
    const ssh = open(2222, 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3');
    const closed: Port = { port: 2223, state: 'closed', service: null, banner: null };
    const filtered: Port = { port: 2224, state: 'filtered', service: null, banner: null };
    await gatherFacts(IP, [ssh, closed, filtered], { ptr: null });
    expect(ssh.facts).toEqual({ ssh: { protocol: '2.0', software: 'OpenSSH_9.2p1', comment: 'Debian-2+deb12u3' } });
    expect(ssh.risk?.severity).toBe('info');
    expect(closed).toEqual({ port: 2223, state: 'closed', service: null, banner: null });
    expect(filtered).toEqual({ port: 2224, state: 'filtered', service: null, banner: null });
  });
});
