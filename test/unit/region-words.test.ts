// A multi-region scan in the page's words (shared by its script and its
// no-JavaScript pages): regions in a sentence, each region's end, the rows
// of a region's own table, and how the form's `regions` field becomes the
// result page's query.
import { describe, expect, it } from 'vitest';

import { ApiError } from '../../src/api/api-error.js';
import type { Port } from '../../src/api/port.js';
import type { Vantage } from '../../src/api/vantages.js';
import { pageData, pageSettings } from '../../src/web/page-settings.js';
import { regionPortRows, regionsText, serviceNames, vantageWords } from '../../src/web/region-words.js';
import { formRegions, resultPath } from '../../src/web/scan-form-route.js';
import { NO_LIMITS } from '../../support/no-limits.js';

const open = (port: number): Port => ({ port, state: 'open', service: `svc-${port}`, banner: null });
const vantage = (changes: Partial<Vantage>): Vantage => ({
  region: 'NL',
  status: 'complete',
  duration_ms: 1500,
  chunks_complete: 64,
  total_chunks: 64,
  ports_open: [],
  ports_filtered: [],
  ...changes,
});

describe('regionsText', () => {
  it('joins regions as a sentence does', () => {
    expect(regionsText([])).toBe('none');
    expect(regionsText(['NL'])).toBe('NL');
    expect(regionsText(['FR', 'NL'])).toBe('FR and NL');
    expect(regionsText(['DE', 'FR', 'NL'])).toBe('DE, FR and NL');
  });
});

describe('vantageWords', () => {
  it('says how each region ended, and why one learned nothing', () => {
    expect(vantageWords(vantage({}))).toBe('Complete: every port verified from NL, in 1.5 s.');
    expect(vantageWords(vantage({ status: 'incomplete', chunks_complete: 40 }))).toBe(
      'Incomplete: only 40 of 64 chunks verified from NL before the time ran out. Not a full view from here.',
    );
    expect(vantageWords(vantage({ status: 'failed', fail_reason: 'unreachable', chunks_complete: 0 }))).toBe(
      'Failed: nothing was learned from NL: the scanning server has no route to your address (unreachable).',
    );
  });
});

describe('regionPortRows', () => {
  it("lists the region's own ports and every port seen differently, closed or not verified from here", () => {
    const nl = vantage({ ports_open: [open(22), open(8080)] });
    const differences = [
      { port: 443, open: ['FR'], filtered: [], closed: ['NL'], unknown: [] },
      { port: 5432, open: ['FR'], filtered: [], closed: [], unknown: ['NL'] },
      { port: 8080, open: ['NL'], filtered: ['FR'], closed: [], unknown: [] },
    ];
    const services = serviceNames([[open(22), open(443), open(5432), open(8080)]]);
    expect(regionPortRows(nl, differences, services)).toEqual([
      { port: 22, service: 'svc-22', state: 'open', differs: false },
      { port: 443, service: 'svc-443', state: 'closed', differs: true },
      { port: 5432, service: 'svc-5432', state: 'not verified', differs: true },
      { port: 8080, service: 'svc-8080', state: 'open', differs: true },
    ]);
  });
});

describe('the form of a scan from every region', () => {
  it('takes `regions` to the query of the result page', () => {
    expect(formRegions(null)).toBeUndefined();
    expect(formRegions('')).toBeUndefined();
    expect(formRegions('all')).toBe('all');
    expect(formRegions('NL,FR,NL')).toBe('FR,NL');
    expect(resultPath('/scan/fast', undefined)).toBe('/scan/fast');
    expect(resultPath('/scan/fast', 'all')).toBe('/scan/fast?regions=all');
    expect(resultPath('/scan/deep', 'FR,NL')).toBe('/scan/deep?regions=FR%2CNL');
  });

  it('refuses a malformed value as the API does', () => {
    expect(() => formRegions('NL;rm')).toThrow(ApiError);
    expect(() => formRegions('NL;rm')).toThrow(/regions must be/);
  });
});

describe('pageData', () => {
  const settings = pageSettings({ page: { origins: [] }, limits: NO_LIMITS });

  it('offers every region only when there are several', () => {
    expect(pageData(settings, '203.0.113.7').regions).toEqual([]);
    expect(pageData(settings, '203.0.113.7', ['NL']).regions).toEqual([]);
    expect(pageData(settings, '203.0.113.7', ['NL', 'FR']).regions).toEqual(['FR', 'NL']);
  });
});
