// A severity on the no-JavaScript pages: its symbol (hidden from screen
// readers) and its word, never colour alone; every result view uses it.
import type { SeverityLevel } from '../api/severity-levels.js';
import { SEVERITY_MARKS } from './exposure-words.js';
import { type Html, html } from './html.js';

export function severityMark(level: SeverityLevel): Html {
  const { label, symbol } = SEVERITY_MARKS[level];
  return html`<span class="severity severity-${level}"><span class="severity-symbol" aria-hidden="true">${symbol}</span> ${label}</span>`;
}
