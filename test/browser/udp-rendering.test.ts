// How the page shows a udp scan's result, from a hand-made one the real
// server's answer is swapped for: an open DNS resolver as 53/udp, high,
// with why and what to do, its amplification in words, the bytes each way,
// its named facts and every answer (a hostile version string stays text);
// the ports that never answered as "no answer (open or filtered)"; in the
// script's page (the scan:complete event) and the no-JavaScript result page
// (its HTML made by the server's own renderer), in Chromium, light and dark,
// at 320 px, with axe-core's checks. udp-scan.test.ts shows a real one.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import type { ScanResultComplete } from '../../src/api/scan-result.js';
import { axeViolations, browserPerFile, screenshot, watchedPage } from '../helpers/browser.js';
import { asCaller, startPageServer } from '../helpers/page-caller.js';
import { renderedResult, streamResult } from '../helpers/stubbed-results.js';

const session = browserPerFile();

const CALLER = '127.0.0.98';
const COMPLETED = 1_795_300_000;
const HOSTILE_VERSION = '<img src=x onerror="window.pwned=1">dnsmasq';

const resolver: Port = {
  port: 53,
  state: 'open',
  service: 'dns',
  banner: 'A query for example.com: answered recursively with 1 address',
  facts: {
    udp: {
      service: 'dns',
      bytes_sent: 58,
      bytes_received: 201,
      amplification: 3.47,
      evidence: ['A query for example.com: answered recursively with 1 address', `version.bind CHAOS TXT: answered ${HOSTILE_VERSION}`],
      details: { recursive: true, version: HOSTILE_VERSION },
    },
  },
  risk: {
    severity: 'high',
    why: 'DNS on UDP port 53 resolves names it does not own for anyone: an open resolver, used to amplify attacks and to poison caches.',
    fix: 'Allow recursion only for your own networks (e.g. `allow-recursion` / `access-control`), or close the port.',
  },
};
const silent = (port: number, service: string): Port => ({ port, state: 'filtered', service, banner: null });

function udpResult(extra: Partial<ScanResultComplete> = {}): ScanResultComplete {
  return {
    ip: CALLER,
    scan_type: 'udp',
    status: 'complete',
    ports_open: [resolver],
    ports_filtered: [silent(123, 'ntp'), silent(161, 'snmp')],
    service_banners: { '53': resolver.banner! },
    ptr_record: null,
    duration_ms: 3100,
    completed_at: COMPLETED,
    expires_at: COMPLETED + 86_400,
    severity: 'high',
    changes: null,
    ...extra,
  };
}

/** A page server and a page calling it as the caller; the stubbed stream's cancelled request is expected. */
async function stubbedPage(options: { javaScriptEnabled?: boolean; colorScheme?: 'light' | 'dark' } = {}) {
  const server = await startPageServer();
  session.cleanups.push(() => server.close());
  const watched = await watchedPage(session.browser, { ...asCaller(CALLER), ...options, expectedFailure: (url) => url.endsWith('/v2/udp') });
  session.cleanups.push(() => watched.context.close());
  return { server, ...watched };
}

async function clickedResult(page: Page, url: string, result: ScanResultComplete): Promise<void> {
  await streamResult(page, `${url}/v2/udp`, result);
  await page.goto(`${url}/`);
  await page.getByRole('button', { name: 'UDP scan', exact: true }).click();
  await page.locator('.pane[data-state="complete"]').waitFor();
}

const folded = (text: string): string => text.replace(/\s+/g, ' ').trim();

async function expectResolverShown(page: Page): Promise<void> {
  expect(folded(await page.locator('.highest').innerText())).toBe('Highest severity: ▲ High');
  const answered = page.getByRole('table', { name: /^UDP services that answered/ });
  expect(await answered.locator('th').allInnerTexts()).toEqual(['Port', 'Service', 'State', 'Severity', 'Amplification', 'First answer']);
  expect(await answered.locator('tbody tr[data-port="53"] td').allInnerTexts()).toEqual(['53/udp', 'dns', 'open', '▲ High', '3.5×', resolver.banner]);
  const article = page.getByRole('article', { name: '53/udp (dns) High' });
  expect(folded(await article.innerText())).toBe(
    folded(`53/udp (dns) ▲ High ${resolver.risk!.why} What to do: ${resolver.risk!.fix}
      Amplification answers 3.5× the bytes it is sent
      Bytes 58 bytes sent, 201 bytes received
      Details recursive yes, version ${HOSTILE_VERSION}
      Answers ${resolver.facts!.udp!.evidence.join(' ')}`),
  );
  expect(await article.locator('ul.evidence li').allInnerTexts()).toEqual(resolver.facts!.udp!.evidence);
  const silentRows = page.getByRole('table', { name: /^UDP ports with no answer/ }).locator('tbody tr');
  expect(await silentRows.evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)))).toEqual([
    ['123/udp', 'ntp', 'no answer (open or filtered)'],
    ['161/udp', 'snmp', 'no answer (open or filtered)'],
  ]);
  expect(await page.getByText('17 of 20 ports').count()).toBe(1);
  // The hostile version stayed text: no element it named exists, nothing it would run ran.
  expect(await page.locator('main img').count()).toBe(0);
}

describe('a udp result on the page with JavaScript', () => {
  it('shows the open resolver with its severity, amplification, bytes and answers, and the silent ports', async () => {
    const { server, page, problems } = await stubbedPage();
    await clickedResult(page, server.url, udpResult());
    await expectResolverShown(page);
    expect(folded(await page.locator('.port-grid .cell[data-port="53"]').innerText())).toBe('53/udp dns open');
    expect(folded(await page.locator('.port-grid .cell[data-port="161"]').innerText())).toBe('161/udp snmp no answer');
    expect(await page.locator('.port-grid .cell[data-state="closed"]').count()).toBe(17);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'udp-resolver-light');
    expect(await problems()).toEqual([]);
  });

  it('passes axe in the dark scheme at 320 px, with no sideways scroll', async () => {
    const { server, page, problems } = await stubbedPage({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 320, height: 800 });
    await clickedResult(page, server.url, udpResult());
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= 320)).toBe(true);
    await screenshot(page, 'udp-resolver-dark-320');
    expect(await problems()).toEqual([]);
  });

  it('says plainly that no UDP service answered', async () => {
    const { server, page, problems } = await stubbedPage();
    await clickedResult(page, server.url, udpResult({ ports_open: [], ports_filtered: [], service_banners: {}, severity: null }));
    expect(await page.locator('.pane .no-open').innerText()).toBe('No UDP service answered (IPv4): not an amplifier.');
    expect(await page.getByText('No UDP port stayed silent: each answered or was refused.').count()).toBe(1);
    expect(await page.locator('.pane .exposure, .pane table').count()).toBe(0);
    expect(await problems()).toEqual([]);
  });
});

describe('a udp result on the page without JavaScript', () => {
  it('shows the same: the resolver, its severity, amplification, bytes and answers, and the silent ports', async () => {
    const { server, page, problems } = await stubbedPage({ javaScriptEnabled: false });
    await renderedResult(page, `${server.url}/scan/udp`, udpResult());
    await page.goto(`${server.url}/scan/udp`);
    await expectResolverShown(page);
    await screenshot(page, 'udp-resolver-no-javascript');
    expect(await problems()).toEqual([]);
  });

  it('passes axe, light and dark, at 320 px', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { server, page, problems } = await stubbedPage({ colorScheme });
      await page.setViewportSize({ width: 320, height: 800 });
      await renderedResult(page, `${server.url}/scan/udp`, udpResult());
      await page.goto(`${server.url}/scan/udp`);
      expect(await axeViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= 320)).toBe(true);
      expect(await problems()).toEqual([]);
    }
  });

  it('says plainly that no UDP service answered', async () => {
    const { server, page, problems } = await stubbedPage({ javaScriptEnabled: false });
    await renderedResult(page, `${server.url}/scan/udp`, udpResult({ ports_open: [], ports_filtered: [], service_banners: {}, severity: null }));
    await page.goto(`${server.url}/scan/udp`);
    expect(await page.locator('.no-open').innerText()).toBe('No UDP service answered: not an amplifier.');
    expect(await page.locator('.exposure, table').count()).toBe(0);
    expect(await problems()).toEqual([]);
  });
});
