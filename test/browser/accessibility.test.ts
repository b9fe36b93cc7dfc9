// The page passes axe-core's WCAG 2.1 A/AA rules before and after a result,
// in light and dark schemes and at 320 px wide (with no sideways page
// scroll), and works from the keyboard alone.
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { listenOn } from '../../support/loopback-listeners.js';
import { axeViolations, launchBrowser, screenshot, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';
import type { TestServer } from '../helpers/test-server.js';

const CALLER = '127.0.0.72';
let browser: Browser;
let server: TestServer;
let closeListeners: () => Promise<void>;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  server = await startPageServer();
  const listeners = await listenOn(CALLER, [8080, 27017], 'a banner long enough to need wrapping on a narrow screen: '.repeat(3));
  closeListeners = listeners.close;
});
afterAll(async () => {
  await closeListeners?.();
  await browser?.close();
  await server?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(options: { colorScheme: 'light' | 'dark'; width: number }): Promise<{ page: Page; problems: () => Promise<string[]> }> {
  const watched = await watchedPage(browser, { ...asCaller(CALLER), colorScheme: options.colorScheme, viewport: { width: options.width, height: 800 } });
  cleanups.push(() => watched.context.close());
  await watched.page.goto(`${server.url}/`);
  return watched;
}

async function fastResult(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
  await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 60_000 });
}

const noSidewaysScroll = (page: Page, width: number) => page.evaluate((w) => document.documentElement.scrollWidth <= w, width);

describe('accessibility (axe-core, WCAG 2.1 A and AA)', () => {
  for (const colorScheme of ['light', 'dark'] as const) {
    for (const width of [1280, 320]) {
      it(`has no violations before and after a fast result, ${colorScheme}, ${width} px wide`, async () => {
        const { page, problems } = await open({ colorScheme, width });
        expect(await axeViolations(page)).toEqual([]);
        expect(await noSidewaysScroll(page, width)).toBe(true);
        await fastResult(page);
        expect(await axeViolations(page)).toEqual([]);
        expect(await noSidewaysScroll(page, width)).toBe(true);
        expect(await page.locator('[style]').count()).toBe(0); // no inline style anywhere (the CSP allows none)
        await screenshot(page, `fast-result-${colorScheme}-${width}`);
        expect(await problems()).toEqual([]);
      });
    }
  }

  it('has no violations with a deep map on the page, dark, 320 px wide', async () => {
    const { page, problems } = await open({ colorScheme: 'dark', width: 320 });
    await page.getByRole('button', { name: 'Deep scan', exact: true }).click();
    await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 110_000 });
    await page.getByRole('img', { name: /Map of ports/ }).focus();
    expect(await axeViolations(page)).toEqual([]);
    expect(await noSidewaysScroll(page, 320)).toBe(true);
    await screenshot(page, 'deep-result-dark-320');
    expect(await problems()).toEqual([]);
  });
});

describe('keyboard only', () => {
  it('reaches "Fast scan" with Tab and starts it with Enter', async () => {
    const { page, problems } = await open({ colorScheme: 'light', width: 1280 });
    let focused = '';
    for (let presses = 0; presses < 20 && focused !== 'Fast scan'; presses++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.textContent ?? '');
    }
    expect(focused).toBe('Fast scan');
    // The focus is visible: an outline is drawn around the focused button.
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).toBe('solid');
    await page.keyboard.press('Enter');
    await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('.results tr[data-port="8080"]').count()).toBe(1);
    expect(await problems()).toEqual([]);
  });
});
