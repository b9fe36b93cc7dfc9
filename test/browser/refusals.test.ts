import { describe, expect, it } from 'vitest';

import type { Config } from '../../src/config/config.js';
import { REFUSAL_WORDS } from '../../src/web/refusal-words.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { NO_LIMITS } from '../../support/no-limits.js';
import { browserPerFile, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';

const session = browserPerFile();
const { cleanups } = session;

async function setUp(caller: string, overrides: Partial<Config>, expectedFailure: (url: string) => boolean) {
  const server = await startPageServer(overrides);
  cleanups.push(() => server.close());
  const watched = await watchedPage(session.browser, { ...asCaller(caller), expectedFailure });
  cleanups.push(() => watched.context.close());
  await watched.page.goto(`${server.url}/`);
  return { ...watched, server };
}

describe('a refused start', () => {
  it('counts a 429 down with its reason, the buttons disabled until the wait ends', async () => {
    const listeners = await listenOn('127.0.0.74', [5432], null);
    cleanups.push(() => listeners.close());
    const limits = { ...NO_LIMITS, edge: { max: 100, windowSeconds: 60 }, deepPerIp: { max: 1, windowSeconds: 300 } };
    const { page, problems } = await setUp('127.0.0.74', { limits }, (url) => url.endsWith('/v2/deep')); // the second start's 429
    const deep = page.getByRole('button', { name: 'Deep scan', exact: true });
    const fast = page.getByRole('button', { name: 'Fast scan', exact: true });
    await deep.click();
    await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 110_000 });
    expect(await page.locator('#budget').textContent()).toMatch(/^\d+ of 100 requests left this minute\.$/);

    await deep.click();
    await page.locator('.pane[data-state="refused"]').waitFor();
    const countdown = page.locator('#retry');
    const first = Number((await countdown.textContent())?.match(/^Try again in (\d+) s$/)?.[1]);
    expect(first).toBeGreaterThan(250);
    expect(first).toBeLessThanOrEqual(300);
    const notice = page.getByRole('alert');
    expect(await notice.textContent()).toContain(REFUSAL_WORDS.rate_limited);
    expect(await notice.textContent()).toMatch(/The service said: “.+”/);
    expect(await deep.isDisabled()).toBe(true);
    expect(await fast.isDisabled()).toBe(true);
    await page.waitForFunction((before) => {
      const seconds = Number(document.getElementById('retry')?.textContent?.match(/(\d+) s$/)?.[1]);
      return seconds < before;
    }, first);
    expect(await page.locator('#budget').textContent()).toMatch(/^\d+ of 100 requests left this minute\.$/);
    expect(await problems()).toEqual([]);
  });

  it('gives the buttons back when the wait is over', async () => {
    const limits = { ...NO_LIMITS, deepPerIp: { max: 1, windowSeconds: 4 } };
    const overrides = { limits, scanBudgetSeconds: { fast: 120, deep: 0.05, udp: 60 } }; // the deep scan ends (incomplete) at once: a sweep takes ten times that
    const { page, problems } = await setUp('127.0.0.77', overrides, (url) => url.endsWith('/v2/deep'));
    const deep = page.getByRole('button', { name: 'Deep scan', exact: true });
    await deep.click();
    await page.locator('.pane[data-state="incomplete"]').waitFor({ timeout: 30_000 });
    await deep.click();
    await page.locator('.pane[data-state="refused"]').waitFor();
    expect(await page.locator('#retry').textContent()).toMatch(/^Try again in [1-4] s$/);
    expect(await deep.isDisabled()).toBe(true);
    await page.waitForFunction(() => !(document.getElementById('deep-button') as HTMLButtonElement).disabled, undefined, { timeout: 10_000 });
    expect(await page.locator('#retry').isHidden()).toBe(true);
    await deep.click();
    await page.locator('.pane[data-state="incomplete"]').waitFor({ timeout: 30_000 });
    expect(await problems()).toEqual([]);
  });

  it('says in plain words why a private address cannot be scanned (422)', async () => {
    const { page, problems } = await setUp('127.0.0.75', { allowPrivateTargets: false }, (url) => url.endsWith('/v2/fast'));
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="refused"]').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain(REFUSAL_WORDS.invalid_target);
    expect(await page.locator('.pane').getByRole('status').textContent()).toContain('not started (422 invalid_target)');
    expect(await page.locator('#retry').isHidden()).toBe(true);
    expect(await page.getByRole('button', { name: 'Fast scan', exact: true }).isDisabled()).toBe(false);
    expect(await problems()).toEqual([]);
  });
});
