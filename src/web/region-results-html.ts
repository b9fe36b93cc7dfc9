// A multi-region scan on the no-JavaScript result page: each region's
// progress while it runs; once it ends, each region's state in words and
// its own ports (those the regions saw differently marked by a symbol and a
// word), then the ports seen differently, region by region. A scan from
// one place has none of this and shows as before.
import type { ScanResult, ScanResultInFlight } from '../api/scan-result.js';
import type { PortDifference, Vantage } from '../api/vantages.js';
import { type Html, html } from './html.js';
import {
  DIFFERENCE_COLUMNS,
  DIFFERS_MARK,
  NO_DIFFERENCES,
  progressWords,
  regionPortRows,
  regionsText,
  SAME_WORDS,
  serviceNames,
  vantageWords,
} from './region-words.js';

type Ended = Extract<ScanResult, { status: 'complete' | 'incomplete' | 'failed' }>;

/** Where a scan looks from, for its title: its regions, else those asked for; empty for a scan from one place. */
export function regionsTitle(body: ScanResult, regionsAsked: string | undefined): string {
  const regions = 'regions' in body ? body.regions : undefined;
  if (regions !== undefined) return ` from ${regionsText(regions)}`;
  if (regionsAsked === undefined) return '';
  return regionsAsked === 'all' ? ' from every region' : ` from ${regionsText(regionsAsked.split(','))}`;
}

/** Each region's progress, while a multi-region scan runs. */
export function regionProgress(body: ScanResultInFlight): Html {
  if (body.vantages === undefined) return html``;
  return html`<ul class="region-progress">${body.vantages.map((vantage) => html`<li data-region="${vantage.region}">${progressWords(vantage)}</li>`)}</ul>`;
}

const differsMark = html`<span class="differs"><span class="differs-mark" aria-hidden="true">${DIFFERS_MARK.symbol}</span> ${DIFFERS_MARK.label}</span>`;

function regionView(vantage: Vantage, differences: readonly PortDifference[], services: ReadonlyMap<number, string | null>): Html {
  const rows = regionPortRows(vantage, differences, services);
  const headingId = `region-${vantage.region}`; // region names are letters, digits, _ and -
  const from = vantage.region;
  const table =
    rows.length === 0
      ? html`<p>No open or filtered port from ${from}, and none seen differently.</p>`
      : html`<table class="results region-ports">
<caption>Ports from ${from}</caption>
<thead><tr><th scope="col">Port</th><th scope="col">Service</th><th scope="col">From ${from}</th><th scope="col">Across regions</th></tr></thead>
<tbody>${rows.map(
          (row) =>
            html`<tr data-port="${row.port}" class="${row.differs ? 'differs-row' : ''}"><td>${row.port}</td><td>${row.service ?? 'unknown'}</td><td>${row.state}</td><td>${row.differs ? differsMark : SAME_WORDS}</td></tr>`,
        )}</tbody>
</table>`;
  return html`<section class="region-view region-${vantage.status}" aria-labelledby="${headingId}" data-region="${from}" data-status="${vantage.status}">
<h3 id="${headingId}">From ${from}</h3>
<p class="region-status">${vantageWords(vantage)}</p>
${table}
</section>`;
}

/** The table of the ports the regions saw differently, or the words that none was. */
function differencesTable(differences: readonly PortDifference[], services: ReadonlyMap<number, string | null>): Html {
  const body =
    differences.length === 0
      ? html`<p class="no-differences">${NO_DIFFERENCES}</p>`
      : html`<table class="results differences-table">
<caption>Ports the regions saw differently</caption>
<thead><tr><th scope="col">Port</th><th scope="col">Service</th>${DIFFERENCE_COLUMNS.map(({ heading }) => html`<th scope="col">${heading}</th>`)}</tr></thead>
<tbody>${differences.map(
          (difference) =>
            html`<tr data-port="${difference.port}"><td><span class="differs-mark" aria-hidden="true">${DIFFERS_MARK.symbol}</span> ${difference.port}</td><td>${services.get(difference.port) ?? 'unknown'}</td>${DIFFERENCE_COLUMNS.map(({ regions }) => html`<td>${regionsText(regions(difference))}</td>`)}</tr>`,
        )}</tbody>
</table>`;
  return html`<section class="differences" aria-labelledby="differences-heading">
<h2 id="differences-heading">${DIFFERS_MARK.label}</h2>
${body}
</section>`;
}

/** Each region's own view and the ports seen differently, once a multi-region scan has ended. */
export function regionResults(body: Ended): Html {
  if (body.vantages === undefined) return html``;
  const differences = body.differences ?? [];
  const services = serviceNames([
    ...('ports_open' in body ? [body.ports_open, body.ports_filtered] : []),
    ...body.vantages.flatMap((v) => [v.ports_open, v.ports_filtered]),
  ]);
  return html`<section class="regions" aria-labelledby="regions-heading">
<h2 id="regions-heading">From each region</h2>
<p>Scanned from ${regionsText(body.vantages.map((vantage) => vantage.region))}. ${'ports_open' in body ? 'The tables above are the union: a port is open if any region reached it.' : ''}</p>
<div class="region-views">${body.vantages.map((vantage) => regionView(vantage, differences, services))}</div>
</section>
${differencesTable(differences, services)}`;
}
