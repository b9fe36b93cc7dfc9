// The page over HTTP, against the real server on port 0: what `/` answers a
// browser and curl, the assets' caching and compression, the security
// headers, CORS for configured origins only, and the no-JavaScript scan
// pages with their refusal of cross-site posts.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PUBLIC_DIR } from '../../src/web/web-assets.js';
import { callerFetch } from '../../support/callers.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const manifest = JSON.parse(readFileSync(new URL('manifest.json', PUBLIC_DIR), 'utf8')) as Record<string, string>;

let server: TestServer;
let listeners: Listeners;
beforeAll(async () => {
  server = await startTestServer({
    limits: { ...NO_LIMITS, edge: { max: 20, windowSeconds: 60 }, deepPerIp: { max: 1, windowSeconds: 300 } },
    page: { ipv4Origin: 'http://v4.scan.test:8080', ipv6Origin: 'http://v6.scan.test:8080', origins: ['http://scan.test'] },
  });
  listeners = await listenOn('127.0.0.71', [22, 8080], '<script>alert(1)</script>');
});
afterAll(async () => {
  await listeners?.close();
  await server?.close();
});

describe('GET /', () => {
  it('answers a browser with the page: its IP, hashed assets, no inline code, strict headers', async () => {
    const response = await callerFetch('127.0.0.70')(`${server.url}/`, { headers: HTML });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    const csp = response.headers.get('content-security-policy')!;
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self'",
      "connect-src 'self' http://v4.scan.test:8080 http://v6.scan.test:8080",
      "form-action 'self'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
    ]);
    const html = await response.text();
    expect(html).toContain('<strong>127.0.0.70</strong>');
    expect(html).toContain('limits how often (requests: 20 per 1 min; deep scans per address: 1 per 5 min)');
    for (const file of Object.values(manifest)) expect(html).toContain(`/assets/${file}`);
    // every script is the bundle or a JSON data block; no inline style
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts).toEqual([
      expect.stringMatching(/^<script type="module" src="\/assets\/app-[\w-]{12}\.js">$/),
      '<script type="application/json" id="page-data">',
    ]);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    const data = JSON.parse(/<script type="application\/json" id="page-data">([^<]*)<\/script>/.exec(html)![1]!);
    expect(data).toMatchObject({
      ip: '127.0.0.70',
      family: 'IPv4',
      panes: [
        { family: 'IPv4', origin: 'http://v4.scan.test:8080' },
        { family: 'IPv6', origin: 'http://v6.scan.test:8080' },
      ],
    });
    expect(data.fastPorts).toHaveLength(32);
  });

  it('starts nothing when loaded: a crawler or prefetcher scans no one', async () => {
    const fetch = callerFetch('127.0.0.72');
    for (let i = 0; i < 3; i++) await fetch(`${server.url}/`, { headers: HTML });
    for (const type of ['fast', 'deep']) expect(await (await fetch(`${server.url}/v1/${type}`)).json()).toMatchObject({ status: 'none' });
    expect(server.logs.filter((l) => l.ip === '127.0.0.72' && typeof l.event === 'string' && l.event.startsWith('scan_'))).toEqual([]);
  });

  it('answers curl with a plain-text quick start naming the caller and this origin', async () => {
    const response = await rawGet('/', { accept: '*/*', host: 'scan.test' }, '127.0.0.73');
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const text = response.body.toString();
    expect(text).toContain('Your address as this server sees it: 127.0.0.73');
    expect(text).toContain('curl -X POST http://scan.test/v1/fast');
    expect(text).toContain('curl -N http://scan.test/v2/deep');
  });

  it('compresses the page with brotli or gzip as the client accepts', async () => {
    const fetch = callerFetch('127.0.0.74');
    const plain = await (await fetch(`${server.url}/`, { headers: { ...HTML, 'accept-encoding': 'identity' } })).text();
    for (const encoding of ['br', 'gzip']) {
      const response = await rawGet(`/`, { ...HTML, 'accept-encoding': encoding }, '127.0.0.74');
      expect(response.headers['content-encoding']).toBe(encoding);
      expect(response.headers.vary).toContain('Accept-Encoding');
      expect(decode(response.body, encoding).toString()).toBe(plain);
    }
  });
});

describe('GET /assets/:file', () => {
  it('serves each asset under the hash of its content, cached for a year, precompressed', async () => {
    for (const [name, file] of Object.entries(manifest)) {
      const bytes = readFileSync(new URL(file, PUBLIC_DIR));
      const hash = createHash('sha256').update(bytes).digest('base64url').slice(0, 12);
      expect(file).toBe(name.replace(/(\.\w+)$/, `-${hash}$1`));
      for (const encoding of ['br', 'gzip', 'identity']) {
        const response = await rawGet(`/assets/${file}`, { 'accept-encoding': encoding });
        expect(response.status).toBe(200);
        expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers['content-encoding']).toBe(encoding === 'identity' ? undefined : encoding);
        expect(decode(response.body, encoding).equals(bytes)).toBe(true);
      }
    }
    expect((await fetch(`${server.url}/assets/${manifest['app.js']}`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${server.url}/assets/${manifest['style.css']}`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
  });

  it('answers a current ETag with 304 and no body', async () => {
    const first = await fetch(`${server.url}/assets/${manifest['style.css']}`);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await rawGet(`/assets/${manifest['style.css']}`, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    expect((await rawGet(`/assets/${manifest['style.css']}`, { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('does not spend the caller’s edge budget, and answers an unknown asset with a JSON 404', async () => {
    const fetch = callerFetch('127.0.0.75');
    const before = Number((await fetch(`${server.url}/`, { headers: HTML })).headers.get('x-ratelimit-remaining'));
    for (let i = 0; i < 25; i++) {
      const response = await fetch(`${server.url}/assets/${manifest['app.js']}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining')).toBeNull();
      await response.arrayBuffer();
    }
    const after = Number((await fetch(`${server.url}/`, { headers: HTML })).headers.get('x-ratelimit-remaining'));
    expect(after).toBe(before - 1);
    const missing = await fetch(`${server.url}/assets/app-000000000000.js`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('CORS', () => {
  it('lets exactly the configured origins read answers, with the limit headers exposed', async () => {
    const fetch = callerFetch('127.0.0.76');
    for (const origin of ['http://v4.scan.test:8080', 'http://v6.scan.test:8080', 'http://scan.test']) {
      const response = await fetch(`${server.url}/v1/fast`, { headers: { origin } });
      expect(response.headers.get('access-control-allow-origin')).toBe(origin);
      expect(response.headers.get('access-control-expose-headers')).toContain('Retry-After');
      expect(response.headers.get('access-control-expose-headers')).toContain('X-RateLimit-Remaining');
      expect(response.headers.get('vary')).toContain('Origin');
    }
    for (const origin of ['https://evil.test', 'http://scan.test:81', 'null']) {
      const response = await fetch(`${server.url}/v1/fast`, { headers: { origin } });
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
  });
});

describe('the page without JavaScript', () => {
  it('starts a fast scan from the form, redirects, and shows the result with banners as text', async () => {
    const fetch = callerFetch('127.0.0.71');
    const host = new URL(server.url).host;
    const posted = await fetch(`${server.url}/scan/fast`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...HTML, origin: server.url, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'type=fast',
    });
    expect(posted.status).toBe(303);
    expect(posted.headers.get('location')).toBe('/scan/fast');
    expect(host).toContain('127.0.0.1');
    let page = '';
    await eventually(
      async () => {
        const response = await fetch(`${server.url}/scan/fast`, { headers: HTML });
        expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
        page = await response.text();
        return !page.includes('http-equiv="refresh"');
      },
      30_000,
      'the result page stops refreshing',
    );
    expect(page).toContain('Complete.');
    const info = '<td><span class="severity severity-info"><span class="severity-symbol" aria-hidden="true">○</span> Info</span></td>';
    expect(page).toContain(`<td>22</td><td>ssh</td><td>open</td>${info}<td><code>&lt;script&gt;alert(1)&lt;/script&gt;</code></td>`);
    expect(page).toContain(`<td>8080</td><td>http-alt</td><td>open</td>${info}`);
    expect(page).toContain('30 of 32 ports');
    expect(page).not.toContain('<script>alert(1)');
    expect(server.logs.find((l) => l.event === 'scan_queued' && l.ip === '127.0.0.71')).toMatchObject({ origin: 'page' });
  });

  it('refreshes itself while the scan is in flight', async () => {
    const fetch = callerFetch('127.0.0.77');
    await fetch(`${server.url}/v1/deep`, { method: 'POST' });
    const page = await (await fetch(`${server.url}/scan/deep`, { headers: HTML })).text();
    expect(page).toMatch(/<meta http-equiv="refresh" content="2">/);
    expect(page).toMatch(/(Queued|Running)/);
  });

  it('refuses a form posted from another site, and starts nothing', async () => {
    const fetch = callerFetch('127.0.0.78');
    for (const headers of [{ origin: 'https://evil.test' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null' }]) {
      const response = await fetch(`${server.url}/scan/fast`, { method: 'POST', redirect: 'manual', headers: { ...HTML, ...headers } });
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await response.text()).toContain('only be sent from this service’s own page');
    }
    expect(await (await fetch(`${server.url}/v1/fast`)).json()).toMatchObject({ status: 'none' });
  });

  it('answers a refused start with a page in plain words, the status and Retry-After of the API', async () => {
    const fetch = callerFetch('127.0.0.79');
    const form = { method: 'POST', redirect: 'manual', headers: HTML } as const;
    expect((await fetch(`${server.url}/scan/deep`, form)).status).toBe(303);
    const refused = await fetch(`${server.url}/scan/deep`, form);
    expect(refused.status).toBe(303); // joins the scan in flight
    await eventually(async () => ((await (await fetch(`${server.url}/v1/deep`)).json()) as { status: string }).status === 'complete', 30_000, 'deep scan ends');
    const limited = await fetch(`${server.url}/scan/deep`, form);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const page = await limited.text();
    expect(page).toContain('You have asked too often');
    expect(page).toMatch(/Try again in \d+ seconds/);
  });
});

describe('a caller over the edge limit', () => {
  it('gets the page’s 429 in plain words, with Retry-After, while curl gets the JSON error', async () => {
    const fetch = callerFetch('127.0.0.82');
    let response = await fetch(`${server.url}/`, { headers: HTML });
    while (response.status === 200) response = await fetch(`${server.url}/`, { headers: HTML });
    expect(response.status).toBe(429);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await response.text()).toContain('You have asked too often');
    const json = await fetch(`${server.url}/`, { headers: { accept: '*/*' } });
    expect(json.status).toBe(429);
    expect(await json.json()).toMatchObject({ error: 'rate_limited' });
  });
});

describe('a caller whose address is not routable', () => {
  it('gets the 422 page in plain words', async () => {
    const strict = await startTestServer({ allowPrivateTargets: false });
    try {
      const response = await callerFetch('127.0.0.80')(`${strict.url}/scan/fast`, { method: 'POST', redirect: 'manual', headers: HTML });
      expect(response.status).toBe(422);
      expect(await response.text()).toContain('not reachable from the internet');
    } finally {
      await strict.close();
    }
  });
});

interface RawResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

/** GET with exactly these headers, the body as sent (fetch would decode it). */
async function rawGet(path: string, headers: Record<string, string>, caller = '127.0.0.81'): Promise<RawResponse> {
  const { request } = await import('node:http');
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, localAddress: caller }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers as Record<string, string | undefined>, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

function decode(body: Buffer, encoding: string): Buffer {
  if (encoding === 'br') return brotliDecompressSync(body);
  if (encoding === 'gzip') return gunzipSync(body);
  return body;
}
