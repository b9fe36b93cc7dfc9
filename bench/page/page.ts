// npm run bench:page — the web page, on this machine, in one run:
//   1. its transfer size: the HTML of `/` and every asset it links, as a
//      browser fetches them (brotli; gzip and uncompressed beside it);
//   2. its time to first result for a fast scan on loopback, in Chromium
//      (Debian's, driven by playwright-core), timed inside the page (so the
//      automation's own latency is left out): from the click's submit event
//      until the open port's banner is in the document; beside it, how long
//      the page takes to load. Against the anchor, the same scan through the
//      API by a plain client (GET /v2/fast until scan:complete),
//      alternating, RUNS each; the ratio of the medians.
// The server is the tsc build (`selfscan serve`); traffic stays on loopback
// (the browser's source address is 127.0.0.1, so listeners sit there).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { chromium } from 'playwright-core';

import { PUBLIC_DIR } from '../../src/web/web-assets.js';
import { listenOn } from '../../support/loopback-listeners.js';
import { startServerProcess } from '../../support/server-process.js';
import { BUILT_CLI } from '../lib/built.js';
import { median } from '../lib/machine.js';
import { recordSection } from '../lib/results-file.js';

const RUNS = 15;
const BANNER = 'BENCH-PAGE-BANNER';
/** Fast-scan ports the listeners take on 127.0.0.1. */
const OPEN_PORTS = [8443, 9200];
const CHROMIUM = '/usr/bin/chromium';

const fmt = (n: number, digits = 1): string => n.toFixed(digits);
const kib = (bytes: number): string => `${fmt(bytes / 1024)} KiB`;

/** The size of `path`'s body as sent with `accept-encoding: encoding`. */
function bodyBytes(url: string, encoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/html', 'accept-encoding': encoding } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => resolve(bytes));
    });
    req.on('error', reject);
    req.end();
  });
}

async function transferSizes(url: string): Promise<Record<string, Record<string, number>>> {
  const manifest = JSON.parse(readFileSync(new URL('manifest.json', PUBLIC_DIR), 'utf8')) as Record<string, string>;
  const paths = { 'HTML (/)': '/', ...Object.fromEntries(Object.entries(manifest).map(([name, file]) => [name, `/assets/${file}`])) };
  const sizes: Record<string, Record<string, number>> = {};
  for (const encoding of ['br', 'gzip', 'identity']) {
    sizes[encoding] = {};
    for (const [name, path] of Object.entries(paths)) sizes[encoding]![name] = await bodyBytes(`${url}${path}`, encoding);
  }
  return sizes;
}

/** Runs in the page before its own script: stamps the click's submit and the banner's arrival (performance.now()). */
function stampResult(banner: string): void {
  const stamps: { submit?: number; result?: number } = {};
  (window as unknown as { stamps: typeof stamps }).stamps = stamps;
  document.addEventListener('submit', () => (stamps.submit ??= performance.now()), true);
  new MutationObserver(() => {
    if (stamps.result === undefined && document.body.textContent?.includes(banner)) stamps.result = performance.now();
  }).observe(document, { subtree: true, childList: true, characterData: true });
}

/** The anchor: request to scan:complete of a fast scan through the API. */
async function apiRun(url: string): Promise<number> {
  const started = performance.now();
  const text = await (await fetch(`${url}/v2/fast`)).text();
  if (!text.includes('event: scan:complete') || !text.includes(BANNER)) throw new Error(`the API scan did not end with the banner: ${text.slice(-300)}`);
  return performance.now() - started;
}

const dataDir = mkdtempSync(join(tmpdir(), 'selfscan-bench-page-'));
const server = await startServerProcess(dataDir, {}, [BUILT_CLI]);
const listeners = await listenOn('127.0.0.1', OPEN_PORTS, BANNER);
const browser = await chromium.launch({ executablePath: CHROMIUM });
try {
  const sizes = await transferSizes(server.url);
  const total = (encoding: string): number => Object.values(sizes[encoding]!).reduce((sum, n) => sum + n, 0);
  console.log(`transfer: ${kib(total('br'))} brotli, ${kib(total('gzip'))} gzip, ${kib(total('identity'))} uncompressed`);

  const clickToResult: number[] = [];
  const pageLoad: number[] = [];
  const api: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    api.push(await apiRun(server.url));
    const context = await browser.newContext();
    await context.addInitScript(stampResult, BANNER);
    const page = await context.newPage();
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan' }).click();
    await page.getByText(BANNER).first().waitFor({ timeout: 30_000 });
    const { stamps, loaded } = await page.evaluate(() => ({
      stamps: (window as unknown as { stamps: { submit: number; result: number } }).stamps,
      loaded: ((performance.getEntriesByType as (type: string) => PerformanceEntry[])('navigation')[0] as PerformanceNavigationTiming).loadEventEnd,
    }));
    clickToResult.push(stamps.result - stamps.submit);
    pageLoad.push(loaded);
    await context.close();
    console.log(`run ${run + 1}: API ${fmt(api.at(-1)!)} ms, page click→result ${fmt(clickToResult.at(-1)!)} ms, page load ${fmt(loaded)} ms`);
  }
  const ratio = median(clickToResult) / median(api);
  console.log(
    `median: API ${fmt(median(api))} ms, click→result ${fmt(median(clickToResult))} ms (${fmt(ratio, 2)}× the API), page load ${fmt(median(pageLoad))} ms`,
  );

  const row = (name: string): string => `| ${name} | ${sizes.br![name]} | ${sizes.gzip![name]} | ${sizes.identity![name]} |`;
  recordSection('page', 'page (npm run bench:page)', [
    'Transfer size of the page as a browser loads it (bytes of each body as sent):',
    '',
    '| file | brotli | gzip | uncompressed |',
    '|---|---|---|---|',
    ...Object.keys(sizes.br!).map(row),
    `| **total** | **${total('br')}** (${kib(total('br'))}) | ${total('gzip')} | ${total('identity')} |`,
    '',
    `Time to first result of a fast scan of 127.0.0.1 (2 open ports with banners), Chromium ${browser.version()} headless, median of ${RUNS} runs:`,
    '',
    '| measure | median | min | max |',
    '|---|---|---|---|',
    `| anchor: the API alone, GET /v2/fast to scan:complete | ${fmt(median(api))} ms | ${fmt(Math.min(...api))} ms | ${fmt(Math.max(...api))} ms |`,
    `| the page: click on "Fast scan" (its submit event) to the banner in the document | ${fmt(median(clickToResult))} ms | ${fmt(Math.min(...clickToResult))} ms | ${fmt(Math.max(...clickToResult))} ms |`,
    `| the page's load: navigation start to its load event (HTML, script, stylesheet, icon) | ${fmt(median(pageLoad))} ms | ${fmt(Math.min(...pageLoad))} ms | ${fmt(Math.max(...pageLoad))} ms |`,
    '',
    `Click to result is ${fmt(ratio, 2)}× the API's own time.`,
  ]);
} finally {
  await browser.close();
  await listeners.close();
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
