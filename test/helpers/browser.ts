// The system's Chromium driven by playwright-core (never a downloaded
// browser), and a page watched for what must never happen: console errors,
// CSP violations, failed requests and error answers other than those a test
// provokes. Also: axe-core's WCAG 2.1 A/AA check, and screenshots under
// test-results/browser/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { type Browser, type BrowserContext, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = 'test-results/browser';

/** A test file's browser, launched before its tests and closed after them, and what each test leaves to undo. */
export interface BrowserPerFile {
  readonly browser: Browser;
  /** Run after each test, last first: servers, listeners, contexts it opened. */
  cleanups: (() => Promise<void>)[];
}

/** Registers the file's hooks: one browser for all its tests, each test's cleanups after it. */
export function browserPerFile(): BrowserPerFile {
  let browser: Browser | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    get browser() {
      if (browser === undefined) throw new Error('the browser is launched in beforeAll');
      return browser;
    },
    cleanups,
  };
}

/** The system's Chromium; `hosts` maps host names to addresses (as /etc/hosts would, for this browser only). */
export function launchBrowser(hosts: Readonly<Record<string, string>> = {}): Promise<Browser> {
  const rules = Object.entries(hosts).map(([name, address]) => `MAP ${name} ${address}`);
  return chromium.launch({ executablePath: CHROMIUM, args: rules.length > 0 ? [`--host-resolver-rules=${rules.join(',')}`] : [] });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Everything that went wrong on the page so far, one line each (empty when all is well). */
  problems(): Promise<string[]>;
}

export interface PageOptions extends BrowserContextOptions {
  /** URLs expected to fail or answer >= 400 (a test provoking a refusal): their requests and console lines are not problems. */
  expectedFailure?: (url: string) => boolean;
}

/** A new context and page whose console errors, CSP violations and failed requests are recorded. */
export async function watchedPage(browser: Browser, options: PageOptions = {}): Promise<WatchedPage> {
  const { expectedFailure = () => false, ...contextOptions } = options;
  const context = await browser.newContext(contextOptions);
  const page = await context.newPage();
  const problems: string[] = [];
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { cspViolations: string[] }).cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
  });
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const provoked = expectedFailure(message.location().url); // "Failed to load resource" of a provoked refusal
    if (!provoked) problems.push(`console error: ${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('requestfailed', (request) => {
    if (!expectedFailure(request.url())) problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
  });
  page.on('response', (response) => {
    if (response.status() >= 400 && !expectedFailure(response.url())) problems.push(`answer ${response.status()}: ${response.url()}`);
  });
  return {
    context,
    page,
    problems: async () => {
      const violations =
        contextOptions.javaScriptEnabled === false ? [] : await page.evaluate(() => (window as unknown as { cspViolations?: string[] }).cspViolations ?? []);
      return [...problems, ...violations.map((violation) => `CSP violation: ${violation}`)];
    },
  };
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's WCAG 2.0/2.1 A and AA violations on the page as it is, one line per failing node. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP does not apply to it.
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: Document,
            options: unknown,
          ): Promise<{ violations: { id: string; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${violation.id} (${violation.help}) at ${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`),
    );
  });
}

/** Saves a full-page screenshot as test-results/browser/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
