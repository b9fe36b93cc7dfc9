// What the page shows of real exposures, from the real server's scan of
// real listeners on the caller's loopback address: a redis-server without a
// password on 6379 and a TLS server on 443 whose certificate, from the
// test's own CA, expires in 3 days. The script's page and the no-JavaScript
// page both show the highest severity, each port's severity, why, what to
// do and facts; a second scan after a port opened shows the server's
// changes. exposure-rendering.test.ts covers every field from hand-made
// results.

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type ExposedHost, startExposedHost } from '../../support/exposed-host.js';
import { type Listeners, listenOn } from '../../support/loopback-listeners.js';
import { axeViolations, browserPerFile, screenshot, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';
import type { TestServer } from '../helpers/test-server.js';

const CALLER = '127.26.2.30';
const session = browserPerFile();
let server: TestServer;
let exposed: ExposedHost | undefined;
let later: Listeners | undefined;

beforeAll(async () => {
  server = await startPageServer();
  exposed = await startExposedHost(CALLER);
});
afterAll(async () => {
  await later?.close();
  await exposed?.close();
  await server?.close();
});

const folded = async (page: Page, selector: string): Promise<string> => (await page.locator(selector).innerText()).replace(/\s+/g, ' ').trim();

async function expectRealExposure(page: Page): Promise<void> {
  expect(await folded(page, '.highest')).toBe('Highest severity: ▲ High');
  const redisPort = await folded(page, 'article.exposure-port[data-port="6379"]');
  expect(redisPort).toMatch(/^Port 6379 \(redis\) ▲ High Redis .* What to do: .* Access Redis answers without a password \(.+\)/);
  const tlsPort = await folded(page, 'article.exposure-port[data-port="443"]');
  expect(tlsPort).toMatch(/^Port 443 \(https\) ◆ Medium The certificate on port 443 expires in [23] day/);
  expect(tlsPort).toMatch(
    /TLS TLSv1\.[23], certificate for soon\.test issued by .+, expires on \d{4}-\d\d-\d\d \(in [23] days\); not from a trusted authority/,
  );
}

describe('real exposures on the page', () => {
  it('the script page shows them, then the port opened since', async () => {
    const { context, page, problems } = await watchedPage(session.browser, asCaller(CALLER));
    session.cleanups.push(() => context.close());
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="complete"]').waitFor({ timeout: 60_000 });
    await expectRealExposure(page);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'exposure-real');

    later = await listenOn(CALLER, [8080]);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.getByText(/^Since the fast scan of/).waitFor({ timeout: 60_000 });
    expect(await page.locator('.changes').textContent()).toMatch(/newly open: 8080; newly closed: none/);
    expect(await problems()).toEqual([]);
  });

  it('the no-JavaScript result page shows them, and no change since the scan before', async () => {
    const { context, page, problems } = await watchedPage(session.browser, { ...asCaller(CALLER), javaScriptEnabled: false });
    session.cleanups.push(() => context.close());
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.getByText('Complete.').waitFor({ timeout: 60_000 });
    await expectRealExposure(page);
    expect(await page.locator('.changes').textContent()).toMatch(/^Since the fast scan of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC: no change\.$/);
    await screenshot(page, 'exposure-real-no-javascript');
    expect(await problems()).toEqual([]);
  });
});
