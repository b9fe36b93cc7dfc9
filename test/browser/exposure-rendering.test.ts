// How the page shows what the server learned of open ports (interface 1.1),
// from a hand-made result the real server's answer is swapped for: the
// scan's highest severity, each port's severity as a word and a symbol, why
// and what to do, its facts in words (a certificate's dates and doubts,
// HTTP, SSH, a data store answering without a password), and the changes
// since the last scan; hostile titles and banners stay text; a 1.0 result
// without facts shows as before. In the script's page (the scan:complete
// event) and the no-JavaScript result page (its HTML made by the server's
// own renderer), in Chromium, light and dark, with axe-core's checks.
// exposure-page.test.ts shows the same from real listeners.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

import type { Port } from '../../src/api/port.js';
import type { ScanResultComplete } from '../../src/api/scan-result.js';
import { axeViolations, browserPerFile, screenshot } from '../helpers/browser.js';
import { renderedResult, streamResult, stubbedPage } from '../helpers/stubbed-results.js';
import { tlsFacts } from '../helpers/tls-facts.js';

const session = browserPerFile();

const COMPLETED = 1_795_300_000;
const DAY = 86_400;
const HOSTILE_TITLE = '<img src=x onerror="window.pwned=1">Admin';
const HOSTILE_BANNER = '<script>window.pwned=2</script>';

const redis: Port = {
  port: 6379,
  state: 'open',
  service: 'redis',
  banner: HOSTILE_BANNER,
  facts: { access: { service: 'redis', auth_required: false, version: '7.0.15', evidence: 'PING answered PONG' } },
  risk: {
    severity: 'high',
    why: 'Redis on port 6379 answers without credentials: anyone can read its data, and often change it.',
    fix: 'Turn on authentication in Redis and close port 6379 to the internet.',
  },
};
const https: Port = {
  port: 443,
  state: 'open',
  service: 'https',
  banner: null,
  facts: {
    tls: tlsFacts({ not_after: COMPLETED + 3 * DAY, days_left: 3, trusted: false, name_matches: false, sha256: 'b'.repeat(64) }),
    http: { tls: true, status: 302, server: '"><b>nginx</b>', title: HOSTILE_TITLE, location: 'https://web.test/login', hsts: false },
  },
  risk: {
    severity: 'medium',
    why: 'The certificate on port 443 expires in 3 day(s).',
    fix: 'Renew the certificate on port 443 before it expires, and check that renewal is automatic.',
  },
};
const ssh: Port = {
  port: 22,
  state: 'open',
  service: 'ssh',
  banner: 'SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3',
  facts: { ssh: { protocol: '2.0', software: 'OpenSSH_9.2p1', comment: 'Debian-2+deb12u3' } },
  risk: {
    severity: 'info',
    why: 'Port 22 is open and answers; nothing known about it is risky.',
    fix: 'Keep port 22 open only if the world is meant to reach it.',
  },
};

function resultFor(ip: string, extra: Partial<ScanResultComplete> = {}): ScanResultComplete {
  return {
    ip,
    scan_type: 'fast',
    status: 'complete',
    ports_open: [ssh, https, redis],
    ports_filtered: [],
    service_banners: { '22': ssh.banner!, '6379': HOSTILE_BANNER },
    ptr_record: null,
    duration_ms: 900,
    completed_at: COMPLETED,
    expires_at: COMPLETED + DAY,
    severity: 'high',
    changes: {
      since: COMPLETED - 2 * 3600,
      opened: [6379],
      closed: [8080],
      changed: [{ port: 443, what: ['certificate', 'severity'], severity_before: 'low', severity_after: 'medium' }],
    },
    ...extra,
  };
}

/** A result as interface 1.0 gave it: no facts, risk, severity or changes. */
function oldResultFor(ip: string): ScanResultComplete {
  const { severity: _severity, changes: _changes, ...rest } = resultFor(ip);
  return { ...rest, ports_open: rest.ports_open.map(({ facts: _facts, risk: _risk, ...port }) => port) };
}

const TLS_WORDS =
  'TLSv1.3, certificate for web.test issued by selfscan test CA, expires on 2026-11-24 (in 3 days); not from a trusted authority, not valid for web.test';
const HTTP_WORDS = `status 302, title “${HOSTILE_TITLE}”, server "><b>nginx</b>, redirects to https://web.test/login, no HSTS`;
const ACCESS_WORDS = 'Redis answers without a password (PING answered PONG); version 7.0.15';
const SSH_WORDS = 'OpenSSH_9.2p1 (Debian-2+deb12u3), protocol 2.0';

/** The text of the exposure article of `port` as rendered (a line per block), its whitespace folded. */
const articleText = async (page: Page, port: number): Promise<string> =>
  (await page.locator(`article.exposure-port[data-port="${port}"]`).innerText()).replace(/\s+/g, ' ').trim();

/** What each port's severity cell says, and whether its symbol is hidden from screen readers. */
const severityCells = (page: Page) =>
  page
    .locator('table.results')
    .first()
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => {
        const mark = row.querySelector('.severity');
        return [row.querySelector('td')?.textContent, mark?.textContent, mark?.querySelector('.severity-symbol')?.getAttribute('aria-hidden')];
      }),
    );

async function expectExposureShown(page: Page, changes: RegExp): Promise<void> {
  expect(((await page.locator('.highest').textContent()) ?? '').replace(/\s+/g, ' ')).toBe('Highest severity: ▲ High');
  expect(await severityCells(page)).toEqual([
    ['22', '○ Info', 'true'],
    ['443', '◆ Medium', 'true'],
    ['6379', '▲ High', 'true'],
  ]);
  // Each port an article named by its port and severity word (the symbol is hidden from its name).
  await expect(page.getByRole('article', { name: 'Port 6379 (redis) High' }).count()).resolves.toBe(1);
  expect(await articleText(page, 6379)).toBe(`Port 6379 (redis) ▲ High ${redis.risk!.why} What to do: ${redis.risk!.fix} Access ${ACCESS_WORDS}`);
  expect(await articleText(page, 443)).toBe(`Port 443 (https) ◆ Medium ${https.risk!.why} What to do: ${https.risk!.fix} TLS ${TLS_WORDS} HTTPS ${HTTP_WORDS}`);
  expect(await articleText(page, 22)).toContain(`SSH ${SSH_WORDS}`);
  expect(await page.locator('.changes').textContent()).toMatch(changes);
  // Hostile text stayed text: no element it named exists, nothing it would run ran.
  expect(await page.locator('main img, main script, main b').count()).toBe(0);
}

describe('the page with JavaScript', () => {
  it('shows the highest severity, each port severity, why, fix and facts, and the server changes', async () => {
    const caller = '127.26.2.1';
    const { server, page, problems } = await stubbedPage(session, caller);
    await streamResult(page, `${server.url}/v2/fast`, resultFor(caller));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="complete"]').waitFor();
    await expectExposureShown(page, /^Since the fast scan of .+: newly open: 6379; newly closed: 8080; changed: 443 \(certificate, severity Low → Medium\)\.$/);
    expect(await page.locator('.pane [role="status"]').textContent()).toContain('3 open, 0 filtered, highest severity High');
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'exposure-light');
    expect(await problems()).toEqual([]);
  });

  it('passes axe in the dark scheme at 320 px, with no sideways scroll', async () => {
    const caller = '127.26.2.2';
    const { server, page, problems } = await stubbedPage(session, caller, { colorScheme: 'dark' });
    await page.setViewportSize({ width: 320, height: 800 });
    await streamResult(page, `${server.url}/v2/fast`, resultFor(caller));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="complete"]').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= 320)).toBe(true);
    await screenshot(page, 'exposure-dark-320');
    expect(await problems()).toEqual([]);
  });

  it('shows a result without facts as before: no severity, no exposure, the browser own comparison', async () => {
    const caller = '127.26.2.3';
    const { server, page, problems } = await stubbedPage(session, caller);
    await streamResult(page, `${server.url}/v2/fast`, oldResultFor(caller));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="complete"]').waitFor();
    expect(await page.locator('.highest, .exposure, .severity').count()).toBe(0);
    expect(await page.locator('table.results').first().locator('th').allTextContents()).toEqual(['Port', 'Service', 'State', 'Banner']);
    expect(await page.locator('.changes').textContent()).toContain('first fast scan over IPv4');
    expect(await problems()).toEqual([]);
  });

  it('says there is no severity when no port is open, and nothing about changes the server does not remember', async () => {
    const caller = '127.26.2.4';
    const { server, page, problems } = await stubbedPage(session, caller);
    await streamResult(page, `${server.url}/v2/fast`, resultFor(caller, { ports_open: [], service_banners: {}, severity: null, changes: null }));
    await page.goto(`${server.url}/`);
    await page.getByRole('button', { name: 'Fast scan', exact: true }).click();
    await page.locator('.pane[data-state="complete"]').waitFor();
    expect(await page.locator('.highest').textContent()).toBe('Highest severity: none: no port is open');
    expect(await page.locator('.exposure').count()).toBe(0);
    expect(await page.locator('.changes').textContent()).toContain('first fast scan over IPv4'); // the browser's own memory
    expect(await problems()).toEqual([]);
  });
});

describe('the page without JavaScript', () => {
  it('shows the same: highest severity, each port severity, why, fix and facts, and the changes', async () => {
    const caller = '127.26.2.5';
    const { server, page, problems } = await stubbedPage(session, caller, { javaScriptEnabled: false });
    await renderedResult(page, `${server.url}/scan/fast`, resultFor(caller));
    await page.goto(`${server.url}/scan/fast`);
    await expectExposureShown(
      page,
      /^Since the fast scan of 2026-11-21 20:26:40 UTC: newly open: 6379; newly closed: 8080; changed: 443 \(certificate, severity Low → Medium\)\.$/,
    );
    expect(await page.getByText(HOSTILE_BANNER, { exact: true }).count()).toBe(1);
    await screenshot(page, 'exposure-no-javascript');
    expect(await problems()).toEqual([]);
  });

  it('passes axe (the same page with scripting on: it has no script of its own)', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const caller = '127.26.2.6';
      const { server, page, problems } = await stubbedPage(session, caller, { colorScheme });
      await renderedResult(page, `${server.url}/scan/fast`, resultFor(caller));
      await page.goto(`${server.url}/scan/fast`);
      expect(await page.locator('script').count()).toBe(0);
      expect(await axeViolations(page)).toEqual([]);
      expect(await problems()).toEqual([]);
    }
  });

  it('shows a result without facts as before', async () => {
    const caller = '127.26.2.7';
    const { server, page, problems } = await stubbedPage(session, caller, { javaScriptEnabled: false });
    await renderedResult(page, `${server.url}/scan/fast`, oldResultFor(caller));
    await page.goto(`${server.url}/scan/fast`);
    expect(await page.locator('.highest, .exposure, .severity, .changes').count()).toBe(0);
    expect(await page.locator('table.results').first().locator('th').allTextContents()).toEqual(['Port', 'Service', 'State', 'Banner']);
    expect(await problems()).toEqual([]);
  });
});
