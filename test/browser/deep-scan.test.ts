// A deep scan started by a click: the canvas map fills chunk by chunk
// (all 64 drawn), the table ends with exactly the listeners' ports, and the
// map's cursor reads a port by keyboard. A deep scan past its time budget
// ends incomplete, and the page says so before anything else.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import { listeningPorts } from '../../support/listening-ports.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { browserPerFile, screenshot, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';
import type { TestServer } from '../helpers/test-server.js';

const session = browserPerFile();
const { cleanups } = session;

async function setUp(
  caller: string,
  ports: number[],
  overrides: Parameters<typeof startPageServer>[0] = {},
): Promise<{ page: Page; server: TestServer; problems: () => Promise<string[]> }> {
  const server = await startPageServer(overrides);
  cleanups.push(() => server.close());
  const opened = await listenOn(caller, ports, 'deep hello');
  cleanups.push(() => opened.close());
  const watched = await watchedPage(session.browser, asCaller(caller));
  cleanups.push(() => watched.context.close());
  await watched.page.goto(`${server.url}/`);
  return { page: watched.page, server, problems: watched.problems };
}

describe('deep scan by click', () => {
  it('fills the map chunk by chunk and ends with the open ports in the table', async () => {
    const { page, problems } = await setUp('127.0.0.70', [2222, 31337, 65000]);
    await page.getByRole('button', { name: 'Deep scan', exact: true }).click();
    const map = page.getByRole('img', { name: /Map of ports 1 to 65,535/ });
    await map.waitFor();
    await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 110_000 });
    expect(await map.getAttribute('data-chunks-drawn')).toBe('64');
    expect(await map.getAttribute('data-finished')).toBe('true');
    const ports = await page.locator('.results tr[data-port]').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-port'))));
    // Exactly what listens on the caller's address: the listeners, and any wildcard listener of this machine.
    const listening = listeningPorts('127.0.0.70');
    expect(listening).toEqual(expect.arrayContaining([2222, 31337, 65000]));
    expect(ports).toEqual(listening);
    expect(await page.locator('.results tr[data-port="31337"]').textContent()).toContain('deep hello');
    expect(await page.getByText(`${65535 - listening.length} of 65535 ports`).isVisible()).toBe(true);

    // The open port's marker is drawn, the unvisited cells are not blank: sample the canvas.
    const pixels = await map.evaluate((canvas: HTMLCanvasElement) => {
      const context = canvas.getContext('2d')!;
      const at = (port: number) => Array.from(context.getImageData(((port % 256) + 0.5) * 2, (Math.floor(port / 256) + 0.5) * 2, 1, 1).data);
      return { open: at(31337), closed: at(1000) };
    });
    expect(pixels.open).not.toEqual(pixels.closed);

    // Keyboard: focus the map, move the cursor, read the port.
    await map.focus();
    expect(await page.locator('.map-readout').textContent()).toBe('Port 1: closed');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('.map-readout').textContent()).toBe('Port 258: closed');
    for (let i = 0; i < 8; i++) await page.keyboard.press('ArrowDown'); // 258 + 8·256 = 2306
    for (let i = 0; i < 84; i++) await page.keyboard.press('ArrowLeft'); // 2222
    expect(await page.locator('.map-readout').textContent()).toBe('Port 2222: open');
    await screenshot(page, 'deep-scan');
    expect(await problems()).toEqual([]);
  });

  it('says prominently that a scan past its time budget is incomplete', async () => {
    const { page, problems } = await setUp('127.0.0.71', [4444], { scanBudgetSeconds: { fast: 120, deep: 0.05, udp: 60 } });
    await page.getByRole('button', { name: 'Deep scan', exact: true }).click();
    await page.locator('.pane[data-state="incomplete"]').waitFor({ timeout: 60_000 });
    const warning = page.locator('.pane .warning');
    expect(await warning.textContent()).toMatch(/^Incomplete scan\. Only \d+ of 64 chunks were verified.*do not treat it as clean/);
    expect(await page.getByRole('status').textContent()).toContain('Deep scan INCOMPLETE');
    expect(await page.getByText('not counted: the scan did not verify every port').isVisible()).toBe(true);
    expect(await page.locator('.changes').textContent()).toContain('Not compared');
    await screenshot(page, 'deep-scan-incomplete');
    expect(await problems()).toEqual([]);
  });
});
