// A multi-region scan's tables as the page's accessible content: each
// region's own ports (those the regions saw differently marked by a symbol
// and a word) and the ports seen differently, region by region. The words
// are region-words.ts's, shared with the no-JavaScript page.
import type { ScanResultFailed, ScanResultFinished } from '../../api/scan-result.js';
import type { PortDifference, Vantage } from '../../api/vantages.js';
import { DIFFERENCE_COLUMNS, DIFFERS_MARK, NO_DIFFERENCES, regionPortRows, regionsText, SAME_WORDS, serviceNames } from '../region-words.js';
import { el, uniqueId } from './dom.js';
import { resultsTable } from './result-table.js';

/** The symbol (hidden from screen readers) and the word of a port seen differently. */
function differsMark(): HTMLElement {
  return el('span', 'differs', {}, el('span', 'differs-mark', { 'aria-hidden': 'true' }, DIFFERS_MARK.symbol), ` ${DIFFERS_MARK.label}`);
}

/** Each port's service name, from every port list of a result. */
export function servicesOf(result: ScanResultFinished | ScanResultFailed): Map<number, string | null> {
  const own = 'ports_open' in result ? [result.ports_open, result.ports_filtered] : [];
  return serviceNames([...own, ...(result.vantages ?? []).flatMap((vantage) => [vantage.ports_open, vantage.ports_filtered])]);
}

/** One region's ports: open and filtered from there, and every port seen differently. */
export function regionTable(
  vantage: Vantage,
  differences: readonly PortDifference[],
  services: ReadonlyMap<number, string | null>,
  family: string,
): HTMLElement {
  const rows = regionPortRows(vantage, differences, services);
  if (rows.length === 0) return el('p', 'region-none', {}, `No open or filtered port from ${vantage.region}, and none seen differently.`);
  return resultsTable(
    `Ports from ${vantage.region} (${family})`,
    ['Port', 'Service', `From ${vantage.region}`, 'Across regions'],
    rows.map((row) =>
      el(
        'tr',
        row.differs ? 'differs-row' : '',
        { 'data-port': String(row.port) },
        el('td', '', {}, String(row.port)),
        el('td', '', {}, row.service ?? 'unknown'),
        el('td', '', {}, row.state),
        el('td', '', {}, row.differs ? differsMark() : SAME_WORDS),
      ),
    ),
  );
}

/** The ports the regions saw differently, region by region, or the words that none was. */
export function differencesView(differences: readonly PortDifference[], services: ReadonlyMap<number, string | null>, family: string): HTMLElement {
  const headingId = uniqueId('differences-heading');
  const content =
    differences.length === 0
      ? el('p', 'no-differences', {}, NO_DIFFERENCES)
      : resultsTable(
          `Ports the regions saw differently (${family})`,
          ['Port', 'Service', ...DIFFERENCE_COLUMNS.map(({ heading }) => heading)],
          differences.map((difference) =>
            el(
              'tr',
              '',
              { 'data-port': String(difference.port) },
              el('td', '', {}, el('span', 'differs-mark', { 'aria-hidden': 'true' }, DIFFERS_MARK.symbol), ` ${difference.port}`),
              el('td', '', {}, services.get(difference.port) ?? 'unknown'),
              ...DIFFERENCE_COLUMNS.map(({ regions }) => el('td', '', {}, regionsText(regions(difference)))),
            ),
          ),
        );
  return el('section', 'differences', { 'aria-labelledby': headingId }, el('h3', '', { id: headingId }, `${DIFFERS_MARK.label} (${family})`), content);
}
