// A udp scan started by a click, in a real browser against the real server
// and a real memcached answering on UDP 11211 of the caller's loopback
// address: the grid of the 20 UDP ports and the table name 11211/udp
// memcached, open and critical, with its amplification, bytes and answers;
// a caller where nothing answers on UDP reads plainly that no UDP service
// answered; and the same scan without JavaScript, through the form's
// /scan/udp and its self-refreshing result page. Nothing goes wrong on the
// way (console, CSP, requests), and the result passes axe.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import { UDP_PORTS } from '../../src/api/scan-type.js';
import { startUdpMemcached } from '../../support/udp-memcached.js';
import { axeViolations, browserPerFile, screenshot, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';

const session = browserPerFile();
const { cleanups } = session;

const AMPLIFICATION = /answers \d+(\.\d)?× the bytes it is sent/;
const BYTES = /^\d+ bytes sent, \d+ bytes received$/;

/** A real memcached on UDP 11211 of `caller`, until the test ends. */
async function memcachedOn(caller: string): Promise<void> {
  const memcached = await startUdpMemcached(caller);
  cleanups.push(() => memcached.close());
}

/** The real server and a page calling it as `caller`, both closed after the test. */
async function pageAs(caller: string, javaScriptEnabled = true) {
  const server = await startPageServer();
  cleanups.push(() => server.close());
  const watched = await watchedPage(session.browser, { ...asCaller(caller), javaScriptEnabled });
  cleanups.push(() => watched.context.close());
  await watched.page.goto(`${server.url}/`);
  return { server, ...watched };
}

async function udpResult(page: Page): Promise<string | null> {
  await page.getByRole('button', { name: 'UDP scan', exact: true }).click();
  await page.locator('.pane[data-state="complete"], .pane[data-state="incomplete"], .pane[data-state="failed"]').waitFor({ timeout: 90_000 });
  return page.locator('.pane').getAttribute('data-state');
}

const cellsIn = (page: Page, state: string) =>
  page.locator(`.port-grid .cell[data-state="${state}"]`).evaluateAll((cells) => cells.map((cell) => Number(cell.getAttribute('data-port'))));

const folded = async (page: Page, selector: string): Promise<string> => ((await page.locator(selector).first().innerText()) ?? '').replace(/\s+/g, ' ').trim();

describe('udp scan by click', () => {
  it('names 11211/udp memcached open and critical, with its amplification, bytes and answers', async () => {
    const caller = '127.0.0.97';
    await memcachedOn(caller);
    const { server, page, problems } = await pageAs(caller);
    const scans: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v2/')) scans.push(request.url());
    });
    expect(await udpResult(page)).toBe('complete');
    expect(scans).toEqual([`${server.url}/v2/udp`]);
    // The grid: the 20 UDP ports, 11211 open, the rest refused by loopback.
    expect(await page.locator('.port-grid .cell').count()).toBe(UDP_PORTS.length);
    expect(await cellsIn(page, 'open')).toEqual([11211]);
    expect(await cellsIn(page, 'closed')).toHaveLength(UDP_PORTS.length - 1);
    expect(await folded(page, '.port-grid .cell[data-port="11211"]')).toBe('11211/udp memcached open');
    // The table: port, service, state, severity, amplification, first answer.
    const table = page.getByRole('table', { name: 'UDP services that answered (IPv4)' });
    const cells = await table.locator('tbody tr[data-port="11211"] td').allInnerTexts();
    expect(cells.slice(0, 4)).toEqual(['11211/udp', 'memcached', 'open', '✖ Critical']);
    expect(cells[4]).toMatch(/^\d+(\.\d)?×$/);
    expect(cells[5]).not.toBe('');
    expect(await page.locator('.highest').innerText()).toBe('Highest severity: ✖ Critical');
    // What it exposes: named by its port, service and severity word; why, what to do, and what it answered.
    const article = page.getByRole('article', { name: '11211/udp (memcached) Critical' });
    expect(await article.count()).toBe(1);
    expect(await article.locator('.why').innerText()).toContain('UDP port 11211');
    const facts = await article.locator('dl.port-facts dd').allInnerTexts();
    expect(facts[0]).toMatch(AMPLIFICATION);
    expect(facts[1]).toMatch(BYTES);
    expect(facts.join('\n')).toMatch(/version \d+\.\d+/);
    expect(await article.locator('ul.evidence li').count()).toBeGreaterThan(0);
    expect(await page.getByText('No UDP port stayed silent: each answered or was refused.').count()).toBe(1);
    expect(await page.getByText(`${UDP_PORTS.length - 1} of ${UDP_PORTS.length} ports`).count()).toBe(1);
    expect(await page.locator('.pane [role="status"]').innerText()).toMatch(/^UDP scan complete: 1 open, 0 filtered, highest severity Critical/);
    // The shell's way to the same scan; no check command, as the check client scans TCP only.
    expect(await page.locator('#snippet-list code').allTextContents()).toContain(`curl -N ${server.url}/v2/udp`);
    expect(await page.locator('#snippet-list code').allTextContents()).toContain(
      `npx selfscan-check --server ${server.url} --udp --expect-open 11211 --only-open --max-severity critical`,
    );
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'udp-scan-memcached');
    expect(await problems()).toEqual([]);
  });

  it('says plainly that no UDP service answered when nothing listens', async () => {
    const caller = '127.0.0.98';
    const { page, problems } = await pageAs(caller);
    expect(await udpResult(page)).toBe('complete');
    expect(await page.locator('.pane .no-open').innerText()).toBe('No UDP service answered (IPv4): not an amplifier.');
    expect(await cellsIn(page, 'open')).toEqual([]);
    expect(await page.locator('.pane .exposure, .pane table').count()).toBe(0);
    expect(await page.locator('.highest').innerText()).toBe('Highest severity: none: no port is open');
    expect(await problems()).toEqual([]);
  });
});

describe('udp scan without JavaScript', () => {
  it('posts the UDP button to /scan/udp and refreshes until memcached shows, critical, with its amplification', async () => {
    const caller = '127.0.0.99';
    await memcachedOn(caller);
    const { server, page, problems } = await pageAs(caller, false);
    const posts: number[] = [];
    page.on('response', (response) => {
      if (response.request().method() === 'POST') posts.push(response.status());
    });
    expect(await page.locator('#panes').textContent()).toBe(''); // the script never ran
    await page.getByRole('button', { name: 'UDP scan', exact: true }).click();
    await page.waitForURL(`${server.url}/scan/udp`);
    expect(posts).toEqual([303]);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(`UDP scan of ${caller}`);
    await page.getByText(/^Complete\.$/).waitFor({ timeout: 90_000 });
    const row = page.getByRole('table', { name: 'UDP services that answered' }).locator('tbody tr');
    expect(await row.count()).toBe(1);
    const cells = await row.locator('td').allInnerTexts();
    expect(cells.slice(0, 4)).toEqual(['11211/udp', 'memcached', 'open', '✖ Critical']);
    const article = page.getByRole('article', { name: '11211/udp (memcached) Critical' });
    expect((await article.locator('dl.port-facts dd').allInnerTexts())[0]).toMatch(AMPLIFICATION);
    expect(await page.locator('meta[http-equiv="refresh"]').count()).toBe(0); // it stopped refreshing
    await screenshot(page, 'udp-scan-no-javascript');
    expect(await problems()).toEqual([]);
  });
});
