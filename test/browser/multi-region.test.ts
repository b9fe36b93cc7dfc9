// The page on a real cluster of two regions: a redis-server of the test's
// own, scanner nodes in NL and FR and an API node, real processes on
// loopback. The page offers "Scan from every region" there (and nowhere on
// a single process); ticked, the script asks the v2 stream for
// `?regions=all` and shows one map per region, each titled and filled from
// its own chunks, both complete in words, the union table, and no
// differences (on loopback both regions see the same ports). Without
// JavaScript, the form carries the choice to the result page, which shows
// the same. region-rendering.test.ts shows regions that disagree.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FAST_PORTS } from '../../src/api/scan-type.js';
import { NO_DIFFERENCES } from '../../src/web/region-words.js';
import { killAll, startNode } from '../../support/cluster-nodes.js';
import { listeningPorts } from '../../support/listening-ports.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { type RedisServer, startRedisServer } from '../../support/redis-server.js';
import type { ServerProcess } from '../../support/server-process.js';
import { axeViolations, launchBrowser, screenshot, watchedPage } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';

const OPEN = [6379, 11211];
const FAST_CALLER = '127.27.2.1';
const DEEP_CALLER = '127.27.2.2';
const FORM_CALLER = '127.27.2.3';

let browser: Browser;
let redis: RedisServer;
let api: ServerProcess;
const nodes: ServerProcess[] = [];
const listeners: Listeners[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  redis = await startRedisServer();
  for (const region of ['NL', 'FR']) nodes.push(await startNode(redis.path, { role: 'scanner', region }));
  // The browser's X-Forwarded-For names the caller: each test scans its own 127.27.2.X.
  api = await startNode(redis.path, { role: 'api', config: { trustProxy: ['127.0.0.1/32'] } });
  nodes.push(api);
  for (const caller of [FAST_CALLER, DEEP_CALLER, FORM_CALLER]) listeners.push(await listenOn(caller, OPEN, 'hello from every region'));
  // Both scanner nodes have announced themselves: the page offers the choice.
  await eventually(
    async () => (await (await fetch(`${api.url}/`, { headers: { Accept: 'text/html' } })).text()).includes('id="regions-all"'),
    20_000,
    'the page offering every region',
  );
}, 90_000);

afterAll(async () => {
  for (const opened of listeners) await opened.close();
  await killAll(nodes);
  await redis?.close();
  await browser?.close();
});

/** The open fast ports a scan of `caller` finds: the listeners, and any wildcard listener of this machine. */
const openFastPorts = (caller: string): number[] => listeningPorts(caller).filter((port) => FAST_PORTS.includes(port));

const folded = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();

/** Each region's section, in page order: its region, its state, its status in words. */
const regionViews = (page: Page) =>
  page.locator('.region-view').evaluateAll((sections) =>
    sections.map((section) => ({
      region: section.getAttribute('data-region'),
      heading: section.querySelector('h3')?.textContent,
      status: section.getAttribute('data-status'),
      words: (section.querySelector('.region-status')?.textContent ?? '').replace(/\s+/g, ' ').trim(),
    })),
  );

/** Both regions shown, titled, complete in words; the union table; no differences. */
async function expectBothRegionsAgree(page: Page, caller: string, scan: 'fast' | 'deep'): Promise<void> {
  const views = await regionViews(page);
  expect(views.map(({ region, heading, status }) => [region, heading, status])).toEqual([
    ['FR', 'From FR', 'complete'],
    ['NL', 'From NL', 'complete'],
  ]);
  for (const { region, words } of views) expect(words).toMatch(new RegExp(`^Complete: every port verified from ${region}, in \\d+\\.\\d s\\.$`));
  const union = (await page.locator('table.results').first().locator('tbody tr td:first-child').allTextContents()).map(Number);
  const expected = scan === 'fast' ? openFastPorts(caller) : listeningPorts(caller);
  expect(expected).toEqual(expect.arrayContaining(OPEN));
  expect(union).toEqual(expected);
  // Each region's own table: the same ports, each the same from every region.
  for (const region of ['FR', 'NL']) {
    const rows = await page
      .locator(`.region-view[data-region="${region}"] table tbody tr`)
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
    expect(rows.map((row) => Number(row[0]))).toEqual(expected);
    expect(new Set(rows.map((row) => `${row[2]} / ${row[3]}`))).toEqual(new Set(['open / the same from every region that verified it']));
  }
  expect(folded(await page.locator('.no-differences').textContent())).toBe(NO_DIFFERENCES);
  expect(await page.locator('.differs').count()).toBe(0);
}

describe('the page on a cluster of two regions', () => {
  it('offers a scan from every region, and says what it costs', async () => {
    const { context, page, problems } = await watchedPage(browser, asCaller(FAST_CALLER));
    try {
      await page.goto(`${api.url}/`);
      const box = page.getByRole('checkbox', { name: 'Scan from every region' });
      expect(await box.isChecked()).toBe(false); // a scan from one place stays the default
      expect(folded(await page.locator('#regions-cost').textContent())).toBe('from FR and NL, one map each · each region counts as one scan');
      expect(await page.locator('.terms').textContent()).toContain('seen differently');
      expect(await axeViolations(page)).toEqual([]);
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('runs a fast scan from every region: a grid per region, both complete, the union table, no differences', async () => {
    const { context, page, problems } = await watchedPage(browser, asCaller(FAST_CALLER));
    try {
      const streams: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('/v2/')) streams.push(new URL(request.url()).pathname + new URL(request.url()).search);
      });
      await page.goto(`${api.url}/`);
      await page.getByRole('checkbox', { name: 'Scan from every region' }).check();
      await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
      await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 60_000 });
      expect(streams).toEqual(['/v2/fast?regions=all']);
      await expectBothRegionsAgree(page, FAST_CALLER, 'fast');
      for (const region of ['FR', 'NL']) {
        const grid = page.getByRole('list', { name: `Fast scan ports over IPv4 from ${region}` });
        expect(await grid.locator('li[data-state="open"]').evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-port'))))).toEqual(
          openFastPorts(FAST_CALLER),
        );
        expect(await grid.locator('li[data-state="pending"], li[data-state="unverified"]').count()).toBe(0);
      }
      expect(await page.locator('.pane [role="status"]').textContent()).toContain('from FR and NL (no differences between regions)');
      expect(await page.locator('progress.chunks').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).toEqual([8, 8]);
      // Every region saw the same: the check command may promise the union.
      expect(await page.getByText('Keep it this way (IPv4)').count()).toBe(1);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'regions-fast');
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fills each region map from its own chunks during a deep scan from every region', async () => {
    const { context, page, problems } = await watchedPage(browser, asCaller(DEEP_CALLER));
    try {
      await page.goto(`${api.url}/`);
      await page.getByRole('checkbox', { name: 'Scan from every region' }).check();
      await page.getByRole('button', { name: 'Deep scan', exact: true }).click();
      await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 170_000 });
      for (const region of ['FR', 'NL']) {
        const map = page.getByRole('img', { name: new RegExp(`^Map of ports 1 to 65,535 over IPv4 from ${region},`) });
        // Every chunk of the region was drawn from a scan:progress that named it, before the result finished the map.
        expect(await map.getAttribute('data-chunks-drawn')).toBe('64');
        expect(await map.getAttribute('data-finished')).toBe('true');
        expect(await map.getAttribute('data-differs')).toBe('0');
      }
      expect(await page.locator('progress.chunks').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).toEqual([128, 128]);
      await expectBothRegionsAgree(page, DEEP_CALLER, 'deep');
      await page.getByRole('img', { name: /from NL/ }).focus();
      expect(await page.locator('.region-view[data-region="NL"] .map-readout').textContent()).toBe('Port 1: closed');
      await screenshot(page, 'regions-deep');
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 200_000);

  it('carries the choice through the form without JavaScript, to a result page with each region', async () => {
    const { context, page, problems } = await watchedPage(browser, { ...asCaller(FORM_CALLER), javaScriptEnabled: false });
    try {
      const posts: number[] = [];
      page.on('response', (response) => {
        if (response.request().method() === 'POST') posts.push(response.status());
      });
      await page.goto(`${api.url}/`);
      await page.getByLabel('Scan from every region').check();
      await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
      await page.waitForURL(`${api.url}/scan/fast?regions=all`);
      expect(posts).toEqual([303]);
      await page.getByText(/^Complete\.$/).waitFor({ timeout: 60_000 });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Fast scan of ${FORM_CALLER} from FR and NL`);
      await expectBothRegionsAgree(page, FORM_CALLER, 'fast');
      expect(await page.locator('table.results').first().textContent()).toContain('hello from every region');
      await screenshot(page, 'regions-no-javascript');
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('the page of a single process', () => {
  it('offers no scan from every region: it scans from one place', async () => {
    const server = await startPageServer();
    const { context, page, problems } = await watchedPage(browser, asCaller(FAST_CALLER));
    try {
      await page.goto(`${server.url}/`);
      expect(await page.getByRole('checkbox').count()).toBe(0);
      expect(await page.locator('.regions-choice').count()).toBe(0);
      expect(await page.locator('.terms').textContent()).not.toContain('seen differently');
      expect(JSON.parse((await page.locator('#page-data').textContent()) ?? '{}').regions).toEqual([]);
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
      await server.close();
    }
  });
});
