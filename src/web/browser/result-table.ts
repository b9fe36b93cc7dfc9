// The parts every result view of the script builds with: a severity as a
// symbol and a word (never colour alone), and a results table that is
// scrollable by keyboard as a named region.
import type { SeverityLevel } from '../../api/severity-levels.js';
import { SEVERITY_MARKS } from '../exposure-words.js';
import { el, uniqueId } from './dom.js';

/** A severity as its symbol (hidden from screen readers) and its word. */
export function severityMark(level: SeverityLevel): HTMLElement {
  const { label, symbol } = SEVERITY_MARKS[level];
  return el('span', `severity severity-${level}`, {}, el('span', 'severity-symbol', { 'aria-hidden': 'true' }, symbol), ` ${label}`);
}

/** A results table with its caption and column headings, scrollable by keyboard as a named region. */
export function resultsTable(caption: string, headings: readonly string[], rows: HTMLTableRowElement[]): HTMLElement {
  const results = el(
    'table',
    'results',
    {},
    el('caption', '', {}, caption),
    el('thead', '', {}, el('tr', '', {}, ...headings.map((heading) => el('th', '', { scope: 'col' }, heading)))),
    el('tbody', '', {}, ...rows),
  );
  return el('div', 'table-wrap', { tabindex: '0', role: 'region', 'aria-label': caption }, results);
}

/** The section that says what each port exposes, one article per port, under `heading`. */
export function exposureSection(heading: string, articles: readonly HTMLElement[]): HTMLElement {
  const headingId = uniqueId('exposure-heading');
  return el('section', 'exposure', { 'aria-labelledby': headingId }, el('h3', '', { id: headingId }, heading), ...articles);
}
