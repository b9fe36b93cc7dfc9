// A fast scan started by a click on the page, in a real browser against the
// real server and real listeners: the grid and the table show exactly the
// listeners' ports with their banners, a second scan reports what changed,
// a hostile banner stays text, and nothing goes wrong on the way (console,
// CSP, requests).

import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { FAST_PORTS } from '../../src/api/scan-type.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { launchBrowser, screenshot, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';
import type { TestServer } from '../helpers/test-server.js';

let browser: Browser;
let server: TestServer;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startPageServer();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function listeners(address: string, ports: number[], banner: string | null) {
  const opened = await listenOn(address, ports, banner);
  cleanups.push(() => opened.close());
  return opened;
}

async function pageAs(caller: string) {
  const watched = await watchedPage(browser, asCaller(caller));
  cleanups.push(() => watched.context.close());
  await watched.page.goto(`${server.url}/`);
  return watched;
}

async function finished(page: Page): Promise<string | null> {
  await page.locator('.pane[data-state="complete"], .pane[data-state="incomplete"], .pane[data-state="failed"]').first().waitFor({ timeout: 60_000 });
  return page.locator('.pane').first().getAttribute('data-state');
}

/** The fast ports open on `caller`: the test's listeners and any wildcard listener of this machine. */
const fastOpen = (caller: string) => listeningPorts(caller).filter((port) => FAST_PORTS.includes(port));

const openIn = (page: Page, selector: string) =>
  page.locator(selector).evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('data-port'))).sort((a, b) => a - b));

describe('fast scan by click', () => {
  it('shows exactly the open ports with their banners in the grid and the table', async () => {
    await listeners('127.0.0.66', [8080, 9200], 'hello from selfscan test');
    const { page, problems } = await pageAs('127.0.0.66');
    const scans: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v2/')) scans.push(request.url());
    });
    await page.waitForTimeout(500); // loading the page starts nothing
    expect(scans).toEqual([]);
    expect(await page.locator('.pane').first().getAttribute('data-state')).toBe('idle');
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    expect(await finished(page)).toBe('complete');
    const open = fastOpen('127.0.0.66');
    expect(open).toEqual(expect.arrayContaining([8080, 9200]));
    expect(await openIn(page, '.port-grid .cell[data-state="open"]')).toEqual(open);
    expect(await page.locator('.port-grid .cell').count()).toBe(32);
    expect(await page.locator('.port-grid .cell[data-state="closed"]').count()).toBe(32 - open.length);
    const table = page.getByRole('table', { name: /Open ports/ });
    expect(await openIn(page, '.results tr[data-port]')).toEqual(open);
    expect(await table.locator('tr[data-port="8080"]').textContent()).toContain('hello from selfscan test');
    expect(await table.locator('tr[data-port="9200"]').textContent()).toContain('hello from selfscan test');
    expect(await page.getByText(`${32 - open.length} of 32 ports`).isVisible()).toBe(true);
    expect(await page.getByRole('status').textContent()).toContain(`Fast scan complete: ${open.length} open`);
    expect(await page.locator('#snippet-list').textContent()).toContain(
      `npx selfscan-check --server ${server.url} --expect-open ${open.join(',')} --only-open --max-severity info`, // nothing riskier than now
    );
    expect(scans).toEqual([`${server.url}/v2/fast`]);
    const snippets = await page.locator('#snippet-list code').allTextContents();
    expect(snippets).toContain(`curl -X POST ${server.url}/v1/fast\ncurl ${server.url}/v1/fast`);
    expect(snippets).toContain(`curl -N ${server.url}/v2/deep`);
    expect(snippets.map((text) => (text.startsWith('{') ? JSON.parse(text) : null))).toContainEqual({
      mcpServers: { selfscan: { type: 'http', url: `${server.url}/mcp` } },
    });
    await screenshot(page, 'fast-scan');
    expect(await problems()).toEqual([]);
  });
});

describe('what a second scan and a hostile host show', () => {
  it('reports the port that opened since the last scan', async () => {
    await listeners('127.0.0.67', [8080], 'first');
    const { page, problems } = await pageAs('127.0.0.67');
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    expect(await finished(page)).toBe('complete');
    expect(await page.locator('.changes').textContent()).toContain('first fast scan over IPv4');
    await listeners('127.0.0.67', [2375], 'second');
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.getByText(/^Since the fast scan of/).waitFor({ timeout: 60_000 });
    expect(await page.locator('.pane').getAttribute('data-state')).toBe('complete');
    expect(await openIn(page, '.results tr[data-port]')).toEqual(fastOpen('127.0.0.67'));
    expect(await page.locator('.changes').textContent()).toMatch(/newly open: 2375; newly closed: none/);
    expect(await problems()).toEqual([]);
  });

  it('shows a banner that holds markup as text, never as markup', async () => {
    const banner = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    await listeners('127.0.0.68', [9200], banner);
    const { page, problems } = await pageAs('127.0.0.68');
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    expect(await finished(page)).toBe('complete');
    const cell = page.locator('.results tr[data-port="9200"] code.banner');
    expect(await cell.textContent()).toBe(banner);
    expect(await cell.isVisible()).toBe(true);
    expect(await page.locator('#panes script, #panes img').count()).toBe(0);
    expect(await problems()).toEqual([]); // an alert would be recorded as a dialog
  });
});
