// How the page shows a multi-region scan whose regions disagree (interface
// 1.2), from a hand-made result the real server's answer is swapped for:
// one map and one table per region, each region's state in words
// (complete, incomplete, failed and why), the ports seen differently marked
// in every region's map and table by a symbol and a word (never colour
// alone), and the "Seen differently" table (open from, filtered from,
// closed from, not verified from). In the script's page (the scan:complete
// event) and the no-JavaScript result page (its HTML made by the server's
// own renderer), with axe-core's checks. multi-region.test.ts shows the
// same from a real cluster, whose regions on loopback never disagree.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import type { ScanResultIncomplete } from '../../src/api/scan-result.js';
import { serviceName } from '../../src/api/service-names.js';
import type { Vantage } from '../../src/api/vantages.js';
import { axeViolations, browserPerFile, screenshot } from '../helpers/browser.js';
import { renderedResult, streamResult, stubbedPage } from '../helpers/stubbed-results.js';

const session = browserPerFile();

const COMPLETED = 1_795_300_000;

const port = (number: number, state: 'open' | 'filtered'): Port => ({ port: number, state, service: serviceName(number), banner: null });

/**
 * Three regions that disagree. DE and FR verified every port; NL ran out of
 * time before its first chunk (ports 21 to 110), so it says nothing of 22.
 * 443: filtered from DE, closed from FR and NL. 8080: open from NL,
 * filtered from FR, closed from DE. 5432: open from all three (the same).
 */
const VANTAGES: Vantage[] = [
  {
    region: 'DE',
    status: 'complete',
    duration_ms: 900,
    chunks_complete: 4,
    total_chunks: 4,
    ports_open: [port(22, 'open'), port(5432, 'open')],
    ports_filtered: [port(443, 'filtered')],
  },
  {
    region: 'FR',
    status: 'complete',
    duration_ms: 1200,
    chunks_complete: 4,
    total_chunks: 4,
    ports_open: [port(22, 'open'), port(5432, 'open')],
    ports_filtered: [port(8080, 'filtered')],
  },
  {
    region: 'NL',
    status: 'incomplete',
    duration_ms: 3000,
    chunks_complete: 3,
    total_chunks: 4,
    ports_open: [port(5432, 'open'), port(8080, 'open')],
    ports_filtered: [],
  },
];

function resultFor(ip: string): ScanResultIncomplete {
  return {
    ip,
    scan_type: 'fast',
    status: 'incomplete',
    partial: true,
    chunks_complete: 11,
    total_chunks: 12,
    ports_open: [port(22, 'open'), port(5432, 'open'), port(8080, 'open')],
    ports_filtered: [port(443, 'filtered')],
    service_banners: {},
    ptr_record: null,
    duration_ms: 3000,
    completed_at: COMPLETED,
    expires_at: COMPLETED + 86_400,
    regions: ['DE', 'FR', 'NL'],
    vantages: VANTAGES,
    differences: [
      { port: 443, open: [], filtered: ['DE'], closed: ['FR', 'NL'], unknown: [] },
      { port: 8080, open: ['NL'], filtered: ['FR'], closed: ['DE'], unknown: [] },
    ],
  };
}

/** Two regions, one of which learned nothing: its reason in words, nothing to compare. */
function failedRegionFor(ip: string): ScanResultIncomplete {
  return {
    ...resultFor(ip),
    chunks_complete: 4,
    total_chunks: 8,
    ports_open: [port(22, 'open')],
    ports_filtered: [],
    regions: ['FR', 'NL'],
    vantages: [
      { ...VANTAGES[1]!, ports_filtered: [] },
      { region: 'NL', status: 'failed', fail_reason: 'interrupted', duration_ms: 0, chunks_complete: 0, total_chunks: 4, ports_open: [], ports_filtered: [] },
    ],
    differences: [],
  };
}

const SAME = 'the same from every region that verified it';
const DIFFERS = '≠ Seen differently';

/** Each region's table as [port, service, state here, across regions]. */
const REGION_ROWS = {
  DE: [
    ['22', 'ssh', 'open', SAME],
    ['443', 'https', 'filtered', DIFFERS],
    ['5432', 'postgresql', 'open', SAME],
    ['8080', 'http-alt', 'closed', DIFFERS],
  ],
  FR: [
    ['22', 'ssh', 'open', SAME],
    ['443', 'https', 'closed', DIFFERS],
    ['5432', 'postgresql', 'open', SAME],
    ['8080', 'http-alt', 'filtered', DIFFERS],
  ],
  NL: [
    ['443', 'https', 'closed', DIFFERS],
    ['5432', 'postgresql', 'open', SAME],
    ['8080', 'http-alt', 'open', DIFFERS],
  ],
};

const STATUS_WORDS = {
  DE: 'Complete: every port verified from DE, in 0.9 s.',
  FR: 'Complete: every port verified from FR, in 1.2 s.',
  NL: 'Incomplete: only 3 of 4 chunks verified from NL before the time ran out. Not a full view from here.',
};

const folded = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();

/** The rows of the table in `scope`, each its cells' folded text. */
const rowsOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim())));

/** What both pages show: each region titled, its state in words and its ports, and the ports seen differently. */
async function expectRegionsShown(page: Page): Promise<void> {
  const regions = await page.locator('.region-view').evaluateAll((sections) => sections.map((section) => section.getAttribute('data-region')));
  expect(regions).toEqual(['DE', 'FR', 'NL']);
  for (const region of ['DE', 'FR', 'NL'] as const) {
    const view = page.getByRole('region', { name: `From ${region}`, exact: true });
    expect(await view.count()).toBe(1);
    expect(folded(await view.locator('.region-status').textContent())).toBe(STATUS_WORDS[region]);
    expect(await rowsOf(page, `.region-view[data-region="${region}"] table tbody tr`)).toEqual(REGION_ROWS[region]);
  }
  expect(await page.locator('.region-view[data-region="NL"]').getAttribute('data-status')).toBe('incomplete');
  // A differing row is marked in words; its symbol is hidden from screen readers, never the only sign.
  const marks = await page.locator('.region-view table .differs .differs-mark').evaluateAll((spans) => spans.map((span) => span.getAttribute('aria-hidden')));
  expect(marks.length).toBe(6);
  expect(new Set(marks)).toEqual(new Set(['true']));

  const differences = page.getByRole('table', { name: /^Ports the regions saw differently/ });
  expect(await differences.locator('th').allTextContents()).toEqual(['Port', 'Service', 'Open from', 'Filtered from', 'Closed from', 'Not verified from']);
  expect(
    await differences.locator('tbody tr').evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim()))),
  ).toEqual([
    ['≠ 443', 'https', 'none', 'DE', 'FR and NL', 'none'],
    ['≠ 8080', 'http-alt', 'NL', 'FR', 'DE', 'none'],
  ]);
  expect(await page.locator('.no-differences').count()).toBe(0);
}

describe('the page with JavaScript', () => {
  it('shows one grid per region, each region state in words, the differing ports marked, and the differences table', async () => {
    const caller = '127.27.1.1';
    const { server, page, problems } = await stubbedPage(session, caller);
    await streamResult(page, `${server.url}/v2/fast`, resultFor(caller));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="incomplete"]').waitFor();
    await expectRegionsShown(page);
    // In each region's grid: the port's state from there, and the mark of a port seen differently.
    const cell = (region: string, number: number) => page.locator(`.region-view[data-region="${region}"] .port-grid li[data-port="${number}"]`);
    expect(await cell('NL', 8080).getAttribute('data-state')).toBe('open');
    expect(await cell('FR', 8080).getAttribute('data-state')).toBe('filtered');
    expect(await cell('DE', 8080).getAttribute('data-state')).toBe('closed');
    expect(await cell('NL', 22).getAttribute('data-state')).toBe('unverified'); // NL never verified it
    for (const region of ['DE', 'FR', 'NL']) {
      expect(await cell(region, 8080).getAttribute('data-differs')).toBe('true');
      expect(folded(await cell(region, 8080).locator('.cell-differs').textContent())).toBe(DIFFERS);
      expect(await cell(region, 5432).getAttribute('data-differs')).toBeNull();
    }
    // The union table as always; the live status names the regions and the count of differences.
    const union = await rowsOf(page, '.pane-results > .table-wrap:first-of-type tbody tr');
    expect(union.map((row) => row[0])).toEqual(['22', '5432', '8080']);
    expect(await page.locator('.pane [role="status"]').textContent()).toContain('from DE, FR and NL (2 ports seen differently)');
    // A check from one place cannot promise what the regions disagree on: no check snippet.
    expect(await page.getByText('Keep it this way').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'regions-differ');
    expect(await problems()).toEqual([]);
  });

  it('passes axe in the dark scheme at 320 px, with no sideways scroll', async () => {
    const caller = '127.27.1.2';
    const { server, page, problems } = await stubbedPage(session, caller, { colorScheme: 'dark' });
    await page.setViewportSize({ width: 320, height: 800 });
    await streamResult(page, `${server.url}/v2/fast`, resultFor(caller));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="incomplete"]').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= 320)).toBe(true);
    await screenshot(page, 'regions-differ-dark-320');
    expect(await problems()).toEqual([]);
  });

  it('says why a region learned nothing, and that the others saw no differences', async () => {
    const caller = '127.27.1.3';
    const { server, page, problems } = await stubbedPage(session, caller);
    await streamResult(page, `${server.url}/v2/fast`, failedRegionFor(caller));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="incomplete"]').waitFor();
    const nl = page.locator('.region-view[data-region="NL"]');
    expect(await nl.getAttribute('data-status')).toBe('failed');
    expect(folded(await nl.locator('.region-status').textContent())).toBe(
      'Failed: nothing was learned from NL: the service stopped before the scan ended (interrupted).',
    );
    expect(await nl.locator('.port-grid li[data-state="unverified"]').count()).toBe(32);
    expect(await page.locator('.no-differences').textContent()).toBe('No differences: every region saw each port it verified the same way.');
    expect(await problems()).toEqual([]);
  });
});

describe('the page without JavaScript', () => {
  it('shows the same: each region state and ports, the differing ports marked, and the differences table', async () => {
    const caller = '127.27.1.4';
    const { server, page, problems } = await stubbedPage(session, caller, { javaScriptEnabled: false });
    await renderedResult(page, `${server.url}/scan/fast?regions=all`, resultFor(caller), 'all');
    await page.goto(`${server.url}/scan/fast?regions=all`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Fast scan of ${caller} from DE, FR and NL`);
    await expectRegionsShown(page);
    // The union table first, as for a scan from one place.
    const union = await page.locator('table.results').first().locator('tbody tr td:first-child').allTextContents();
    expect(union).toEqual(['22', '5432', '8080']);
    await screenshot(page, 'regions-differ-no-javascript');
    expect(await problems()).toEqual([]);
  });

  it('passes axe (the same page with scripting on: it has no script of its own)', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const caller = '127.27.1.5';
      const { server, page, problems } = await stubbedPage(session, caller, { colorScheme });
      await renderedResult(page, `${server.url}/scan/fast?regions=all`, resultFor(caller), 'all');
      await page.goto(`${server.url}/scan/fast?regions=all`);
      expect(await page.locator('script').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      expect(await problems()).toEqual([]);
    }
  });
});
