// IPv4 and IPv6 side by side: with both family origins configured, one
// click scans in two panes, each through its own origin (cross-origin, with
// CORS), so each pane scans the address of its own family. A pane whose
// origin cannot be reached says there is no path over that family. As in a
// deployment, each family's origin is a host name with an address of that
// family only (an IPv6 literal cannot be named in a CSP): the browser
// resolves them by its own host rules.
import { createServer } from 'node:net';

import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { listenOn } from '../../support/loopback-listeners.js';
import { launchBrowser, screenshot, watchedPage } from '../helpers/browser.js';
import { startTestServer } from '../helpers/test-server.js';

let browser: Browser;
const cleanups: (() => Promise<void>)[] = [];

const V4_HOST = 'ipv4.selfscan.test';
const V6_HOST = 'ipv6.selfscan.test';

beforeAll(async () => {
  browser = await launchBrowser({ [V4_HOST]: '127.0.0.1', [V6_HOST]: '[::1]' });
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A TCP port free on every address right now (the origins must name the port before the server starts). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '::', port: 0 }, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The real server on `::` (both families), its page at localhost, its panes at the given origins. */
async function dualStackServer(ipv4Origin: (port: number) => string, ipv6Origin: (port: number) => string) {
  const port = await freePort();
  const page = { origins: [`http://localhost:${port}`], ipv4Origin: ipv4Origin(port), ipv6Origin: ipv6Origin(port) };
  const server = await startTestServer({ host: '::', port, page });
  cleanups.push(() => server.close());
  return { pageUrl: `http://localhost:${port}/`, ...page };
}

const openPorts = (pane: import('playwright-core').Locator) =>
  pane.locator('.results tr[data-port]').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-port'))));

describe('IPv4 and IPv6 panes', () => {
  it('scans both families with one click, each through its own origin', async () => {
    const v4 = await listenOn('127.0.0.1', [9200], 'over IPv4');
    cleanups.push(() => v4.close());
    const v6 = await listenOn('::1', [11211], 'over IPv6');
    cleanups.push(() => v6.close());
    const { pageUrl } = await dualStackServer(
      (port) => `http://${V4_HOST}:${port}`,
      (port) => `http://${V6_HOST}:${port}`,
    );
    const { context, page, problems } = await watchedPage(browser);
    cleanups.push(() => context.close());
    const scans: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/v2/')) scans.push(request.url());
    });
    await page.goto(pageUrl);
    const ipv4 = page.locator('.pane[data-family="IPv4"]');
    const ipv6 = page.locator('.pane[data-family="IPv6"]');
    expect(await page.locator('.pane').count()).toBe(2);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await ipv4.and(page.locator('[data-state="complete"]')).waitFor({ timeout: 60_000 });
    await ipv6.and(page.locator('[data-state="complete"]')).waitFor({ timeout: 60_000 });
    expect(scans.map((url) => new URL(url).hostname).sort()).toEqual([V4_HOST, V6_HOST]);
    const v4Open = await openPorts(ipv4);
    const v6Open = await openPorts(ipv6);
    expect(v4Open).toContain(9200);
    expect(v4Open).not.toContain(11211);
    expect(v6Open).toContain(11211);
    expect(v6Open).not.toContain(9200);
    expect(await ipv6.locator('tr[data-port="11211"]').textContent()).toContain('over IPv6');
    expect(await page.locator('#snippet-list').textContent()).toMatch(new RegExp(`--server http://${V6_HOST}:\\d+ --expect-open [\\d,]*11211`));
    await screenshot(page, 'two-panes');
    expect(await problems()).toEqual([]);
  });

  it('says there is no IPv6 path when the IPv6 origin cannot be reached', async () => {
    const deadPort = await freePort();
    const { pageUrl, ipv6Origin } = await dualStackServer(
      (port) => `http://${V4_HOST}:${port}`,
      () => `http://${V6_HOST}:${deadPort}`,
    );
    const { context, page, problems } = await watchedPage(browser, { expectedFailure: (url) => url.startsWith(ipv6Origin) });
    cleanups.push(() => context.close());
    await page.goto(pageUrl);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    const ipv6 = page.locator('.pane[data-family="IPv6"]');
    await ipv6.and(page.locator('[data-state="unreachable"]')).waitFor({ timeout: 30_000 });
    expect(await ipv6.getByRole('status').textContent()).toBe('No IPv6 path: your browser could not reach the service over IPv6.');
    await page.locator('.pane[data-family="IPv4"][data-state="complete"]').waitFor({ timeout: 60_000 });
    expect(await problems()).toEqual([]);
  });
});
