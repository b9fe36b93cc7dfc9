// Pages whose scan result is hand-made: the real page server, a watched
// page from a chosen caller, and the result swapped in where the page reads
// it (the stream's one scan:complete event, or the no-JavaScript result
// page rendered by the server's own renderer).
import type { Page, Route } from 'playwright-core';

import type { ScanResultFinal } from '../../src/api/scan-result.js';
import { renderResultPage } from '../../src/web/result-page-html.js';
import { loadWebAssets } from '../../src/web/web-assets.js';
import { type BrowserPerFile, watchedPage } from './browser.js';
import { asCaller, startPageServer } from './page-caller.js';

/** A page server and a page calling it as `caller`, both closed after the test. */
export async function stubbedPage(session: BrowserPerFile, caller: string, options: { javaScriptEnabled?: boolean; colorScheme?: 'light' | 'dark' } = {}) {
  const server = await startPageServer();
  session.cleanups.push(() => server.close());
  // The stubbed stream is whole at once, so the page's reader, done at scan:complete, cancels a request
  // the browser still counts as open: that cancellation is expected, no other failure is.
  const watched = await watchedPage(session.browser, { ...asCaller(caller), ...options, expectedFailure: (url) => url.endsWith('/v2/fast') });
  session.cleanups.push(() => watched.context.close());
  return { server, ...watched };
}

/** Answers the page's GET `url` (its stream) with one scan:complete event carrying `result`. */
export async function streamResult(page: Page, url: string, result: ScanResultFinal): Promise<void> {
  await page.route(url, (route: Route) =>
    route.fulfill({
      status: 200,
      headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' },
      body: `event: scan:complete\nid: 1\ndata: ${JSON.stringify(result)}\n\n`,
    }),
  );
}

/**
 * The server's own answer to GET `url` (headers, CSP), its body the
 * server's renderer applied to `result` (`regions`: what a multi-region
 * page was asked for); 200 whatever the server answered (a single process
 * refuses `regions`, the rendering is the same).
 */
export async function renderedResult(page: Page, url: string, result: ScanResultFinal, regions?: string): Promise<void> {
  const assets = loadWebAssets();
  await page.route(url, async (route: Route) => {
    const response = await route.fetch();
    await route.fulfill({ response, status: 200, body: renderResultPage(assets, result, regions).text });
  });
}
