// What the page shows of states a loopback host cannot be made to produce
// on demand, with a scanner stand-in the test drives chunk by chunk: the
// deep map filling chunk by chunk, filtered ports (map and table, read by
// hovering the map), a queued scan's position, a failed scan, and a live
// region that is rewritten on changes of state and at most every few
// seconds, not once per chunk.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import { browserPerFile, screenshot, watchedPage } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { FakeScanner, openPort } from '../helpers/fake-scanner.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';
import type { TestServer } from '../helpers/test-server.js';

const session = browserPerFile();
const { cleanups } = session;

const filteredPort = (port: number): Port => ({ port, state: 'filtered', service: null, banner: null });

async function setUp(
  caller: string,
  overrides: Parameters<typeof startPageServer>[0] = {},
): Promise<{ page: Page; scanner: FakeScanner; server: TestServer; problems: () => Promise<string[]> }> {
  const scanner = new FakeScanner();
  const server = await startPageServer(overrides, { scanner });
  cleanups.push(() => server.close());
  const watched = await watchedPage(session.browser, asCaller(caller));
  cleanups.push(() => watched.context.close());
  await watched.page.goto(`${server.url}/`);
  // Every text the pane's live region shows, in order.
  await watched.page.evaluate(() => {
    const said: string[] = [];
    (window as unknown as { said: string[] }).said = said;
    new MutationObserver(() => {
      const region = document.querySelector('.pane [role="status"]');
      if (region !== null && region.textContent !== said.at(-1)) said.push(region.textContent ?? '');
    }).observe(document.getElementById('panes')!, { subtree: true, childList: true, characterData: true });
  });
  return { page: watched.page, scanner, server, problems: watched.problems };
}

/** Moves the mouse over `port`'s cell of the deep map. */
async function hoverPort(page: Page, port: number): Promise<void> {
  const map = page.locator('canvas.port-map');
  await map.scrollIntoViewIfNeeded();
  const cells = await map.evaluate((canvas) => {
    const box = canvas.getBoundingClientRect();
    return { x: box.left + canvas.clientLeft, y: box.top + canvas.clientTop, width: canvas.clientWidth, height: canvas.clientHeight };
  });
  await page.mouse.move(cells.x + (((port % 256) + 0.5) / 256) * cells.width, cells.y + ((Math.floor(port / 256) + 0.5) / 256) * cells.height);
}

const said = (page: Page) => page.evaluate(() => (window as unknown as { said: string[] }).said);

describe('scan states driven chunk by chunk', () => {
  it('fills the deep map chunk by chunk, draws filtered ports, and speaks rarely', async () => {
    const { page, scanner, problems } = await setUp('127.0.0.80');
    await page.getByRole('button', { name: 'Deep scan', exact: true }).click();
    await eventually(() => scanner.scans.length === 1, 10_000, 'the deep scan starts');
    const scan = scanner.scans[0]!;
    for (let index = 0; index < 10; index++) scan.chunk({ index, total: 1024 });
    await page.waitForFunction(() => document.querySelector('canvas')?.dataset.chunksDrawn === '10');
    expect(await page.locator('progress.chunks').evaluate((bar: HTMLProgressElement) => [bar.value, bar.max])).toEqual([10, 64]);
    // Chunk 0 (ports 1–1024) is drawn closed, chunk 63 (ports 64513–65535) not yet.
    await hoverPort(page, 1);
    expect(await page.locator('.map-readout').textContent()).toBe('Port 1: closed');
    await hoverPort(page, 1024);
    expect(await page.locator('.map-readout').textContent()).toBe('Port 1024: closed');
    await hoverPort(page, 10241);
    expect(await page.locator('.map-readout').textContent()).toBe('Port 10241: not scanned yet');
    await hoverPort(page, 65535);
    expect(await page.locator('.map-readout').textContent()).toBe('Port 65535: not scanned yet');
    await screenshot(page, 'deep-map-filling');

    for (let index = 10; index < 64; index++) {
      const here = index === 40 ? { open: [openPort(40961, 'SSH-2.0-test')], filtered: [filteredPort(41000), filteredPort(41001)] } : {};
      scan.chunk({ index, total: 1024, ...here });
    }
    await page.waitForFunction(() => document.querySelector('canvas')?.dataset.chunksDrawn === '64');
    scan.complete('complete', 4321);
    await page.locator('.pane[data-state="complete"]').waitFor();

    expect(await page.locator('.results tr[data-port]').evaluateAll((rows) => rows.map((row) => row.textContent))).toEqual([
      '40961unknownopen○ InfoSSH-2.0-test', // rated by the facts stage: nothing risky known
      '41000unknownfiltered',
      '41001unknownfiltered',
    ]);
    expect(await page.getByRole('table', { name: /Filtered ports/ }).isVisible()).toBe(true);
    expect(await page.getByText('65532 of 65535 ports').isVisible()).toBe(true);
    // Hover the filtered port's cell: the map drew it filtered.
    await hoverPort(page, 41000);
    expect(await page.locator('.map-readout').textContent()).toBe('Port 41000: filtered');
    await hoverPort(page, 40961);
    expect(await page.locator('.map-readout').textContent()).toBe('Port 40961: open');

    // 64 progress events, but the live region spoke only on changes of state and the few routine updates the interval allows.
    const spoken = await said(page);
    // its duration is the scan's own, from its start to its end by the clock, not the fake sweep's
    expect(spoken.at(-1)).toMatch(/^Deep scan complete: 1 open, 2 filtered, highest severity Info, in \d+\.\d s\.$/);
    expect(spoken.some((text) => text.startsWith('Deep scan running: '))).toBe(true);
    expect(spoken.length).toBeLessThanOrEqual(6);
    await screenshot(page, 'deep-map-filtered');
    expect(await problems()).toEqual([]);
  });

  it('says why a scan failed, with no result', async () => {
    const { page, scanner, problems } = await setUp('127.0.0.81');
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await eventually(() => scanner.scans.length === 1, 10_000, 'the fast scan starts');
    scanner.scans[0]!.chunk({ index: 0, total: 8 });
    scanner.scans[0]!.fail(Object.assign(new Error('no route to host'), { code: 'EHOSTUNREACH' }));
    await page.locator('.pane[data-state="failed"]').waitFor();
    expect(await page.locator('.pane .warning').textContent()).toBe(
      'The scan failed: the scanning server has no route to your address (unreachable), after 1 of 4 chunks. There is no result.',
    );
    expect(await page.locator('.results').count()).toBe(0);
    expect((await said(page)).at(-1)).toBe('Fast scan failed (unreachable).');
    expect(await problems()).toEqual([]);
  });

  it('says where a queued scan waits, then that it runs', async () => {
    const { page, scanner, server, problems } = await setUp('127.0.0.82', { concurrency: { fast: 1 }, sseKeepAliveSeconds: 1 });
    // Another caller's fast scan holds the only place.
    const other = await fetch(`${server.url}/v1/fast`, { method: 'POST', headers: { 'X-Forwarded-For': '127.0.0.83' } });
    expect(other.status).toBe(200);
    await eventually(() => scanner.scans.length === 1, 10_000, "the other caller's scan starts");
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="queued"]').waitFor();
    expect((await said(page)).at(-1)).toMatch(/^Fast scan queued: next in line for a free scanner\. 0 of 4 chunks done; about \d+ s expected\.$/);
    await page.waitForTimeout(1500); // a keep-alive comment or two arrive on the stream meanwhile
    scanner.scans[0]!.complete();
    await eventually(() => scanner.scans.length === 2, 10_000, "the page's scan starts");
    scanner.scans[1]!.chunk({ index: 0, total: 8 });
    await page.locator('.pane[data-state="running"]').waitFor();
    expect((await said(page)).at(-1)).toMatch(/^Fast scan running: [01] of 4 chunks done, \d+ s elapsed, about \d+ s expected\.$/);
    for (let index = 1; index < 4; index++) scanner.scans[1]!.chunk({ index, total: 8 });
    scanner.scans[1]!.complete();
    await page.locator('.pane[data-state="complete"]').waitFor();
    expect(await page.locator('.port-grid .cell[data-state="closed"]').count()).toBe(32);
    expect(await problems()).toEqual([]);
  });
});
