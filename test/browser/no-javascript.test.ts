// The page with JavaScript off: its form posts to /scan/{fast,deep}, the
// server answers 303 to a result page that refreshes itself until the scan
// ends, then shows the listeners' ports, styled by the same stylesheet.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FAST_PORTS } from '../../src/api/scan-type.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { launchBrowser, screenshot, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';
import type { TestServer } from '../helpers/test-server.js';

const CALLER = '127.0.0.76';
let browser: Browser;
let server: TestServer;
let closeListeners: () => Promise<void>;

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startPageServer();
  closeListeners = (await listenOn(CALLER, [6379, 11211], 'no script needed')).close;
});
afterAll(async () => {
  await closeListeners?.();
  await browser?.close();
  await server?.close();
});

describe('without JavaScript', () => {
  it('runs a fast scan through the form, refreshing until the result', async () => {
    const { context, page, problems } = await watchedPage(browser, { ...asCaller(CALLER), javaScriptEnabled: false });
    try {
      const redirects: number[] = [];
      page.on('response', (response) => {
        if (response.request().method() === 'POST') redirects.push(response.status());
      });
      await page.goto(`${server.url}/`);
      expect(await page.locator('#panes').textContent()).toBe(''); // the script never ran
      await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
      await page.waitForURL(`${server.url}/scan/fast`);
      expect(redirects).toEqual([303]);
      await page.getByText('Complete.').waitFor({ timeout: 60_000 });
      const open = listeningPorts(CALLER).filter((port) => FAST_PORTS.includes(port));
      expect(open).toEqual(expect.arrayContaining([6379, 11211]));
      const rows = await page
        .locator('table.results')
        .first()
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => Number(tr.querySelector('td')?.textContent)));
      expect(rows.sort((a, b) => a - b)).toEqual(open);
      expect(await page.locator('table.results').first().textContent()).toContain('no script needed');
      // Styled by the shared stylesheet (a class the page's CSS defines), with no inline style.
      expect(await page.locator('.facts').evaluate((dl) => getComputedStyle(dl).display)).toBe('grid');
      await screenshot(page, 'no-javascript-fast');
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('posts the deep button to /scan/deep', async () => {
    const { context, page, problems } = await watchedPage(browser, { ...asCaller(CALLER), javaScriptEnabled: false });
    try {
      await page.goto(`${server.url}/`);
      await page.getByRole('button', { name: 'Deep scan', exact: true }).click();
      await page.waitForURL(`${server.url}/scan/deep`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Deep scan of ${CALLER}`);
      await page.getByText(/^Complete\.$/).waitFor({ timeout: 110_000 });
      // The listeners' ports, not their banners: a deep scan of loopback
      // keeps both cores busy, and this process, which greets for the
      // listeners, has once been starved past the scanner's banner wait
      // (the fast scan above checks the banner).
      const ports = await page
        .locator('table.results')
        .first()
        .locator('tbody tr td:first-child')
        .evaluateAll((tds) => tds.map((td) => Number(td.textContent)));
      expect(ports).toEqual(expect.arrayContaining([6379, 11211]));
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
