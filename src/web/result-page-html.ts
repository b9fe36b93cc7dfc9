// The pages of the no-JavaScript path: a scan's state, refreshed by the
// browser itself (a meta refresh, which the CSP allows) until it ends, then
// its result (with each open port's severity and facts, the changes since
// the last scan, when the server has them, a udp scan's ports in its own
// words: udp-result-html.ts, and, for a scan from several regions, each
// region's view: region-results-html.ts); and the page of a refused start.
import type { Port } from '../api/port.js';
import type { ScanResult } from '../api/scan-result.js';
import { SCAN_PROFILES, type ScanType } from '../api/scan-type.js';
import { changesWords, NO_SEVERITY, portFactLines } from './exposure-words.js';
import { type Html, html } from './html.js';
import { pageFrame } from './page-html.js';
import { refusalWords } from './refusal-words.js';
import { regionProgress, regionResults, regionsTitle } from './region-results-html.js';
import { SCAN_NAMES_IN_SENTENCE, SCAN_TITLES } from './scan-names.js';
import { severityMark } from './severity-html.js';
import { udpAnsweredHtml, udpExposureHtml, udpSilentHtml } from './udp-result-html.js';
import type { WebAssets } from './web-assets.js';

/** Seconds between refreshes of an in-flight scan's page. */
export const REFRESH_SECONDS = 2;

const utc = (seconds: number): string => `${new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`;

/** A button that starts the scan again, from the same regions. */
function startForm(scanType: ScanType, label: string, regionsAsked: string | undefined): Html {
  const regions = regionsAsked === undefined ? '' : html`<input type="hidden" name="regions" value="${regionsAsked}">`;
  return html`<form method="post" action="/scan/${scanType}">${regions}<button type="submit">${label}</button></form>`;
}

function portRows(ports: readonly Port[], withBanner: boolean, withSeverity = false): Html {
  return html`${ports.map(
    (port) =>
      html`<tr><td>${port.port}</td><td>${port.service ?? 'unknown'}</td><td>${port.state}</td>${withSeverity ? html`<td>${port.risk === undefined ? 'not rated' : severityMark(port.risk.severity)}</td>` : ''}${withBanner ? html`<td><code>${port.banner ?? ''}</code></td>` : ''}</tr>`,
  )}`;
}

/** Each open port the server rated or learned about: its severity, why, what to do, and its facts in words. */
function exposure(ports: readonly Port[]): Html {
  const known = ports.filter((port) => port.risk !== undefined || port.facts !== undefined);
  if (known.length === 0) return html``;
  return html`<section class="exposure" aria-labelledby="exposure-heading">
<h2 id="exposure-heading">What the open ports expose</h2>
${known.map((port) => {
  const facts = portFactLines(port);
  return html`<article class="exposure-port${port.risk === undefined ? '' : ` exposure-${port.risk.severity}`}" aria-labelledby="exposure-${port.port}" data-port="${port.port}">
<h3 id="exposure-${port.port}">Port ${port.port}${port.service === null ? '' : ` (${port.service})`}${port.risk === undefined ? '' : html` ${severityMark(port.risk.severity)}`}</h3>
${
  port.risk === undefined
    ? ''
    : html`<p class="why">${port.risk.why}</p>
<p class="fix"><strong>What to do:</strong> ${port.risk.fix}</p>`
}
${facts.length === 0 ? '' : html`<dl class="port-facts">${facts.map(({ term, text }) => html`<dt>${term}</dt><dd>${text}</dd>`)}</dl>`}
</article>`;
})}
</section>`;
}

/** A TCP scan's open ports (with their exposure) and filtered ports. */
function tcpPorts(body: Extract<ScanResult, { ports_open: Port[] }>, changes: Html): Html {
  const rated = body.ports_open.some((port) => port.risk !== undefined);
  return html`<table class="results">
<caption>Open ports</caption>
<thead><tr><th scope="col">Port</th><th scope="col">Service</th><th scope="col">State</th>${rated ? html`<th scope="col">Severity</th>` : ''}<th scope="col">Banner</th></tr></thead>
<tbody>${body.ports_open.length > 0 ? portRows(body.ports_open, true, rated) : html`<tr><td colspan="4">No open port.</td></tr>`}</tbody>
</table>
${exposure(body.ports_open)}
${changes}${
  body.ports_filtered.length > 0
    ? html`<table class="results"><caption>Filtered ports</caption><thead><tr><th scope="col">Port</th><th scope="col">Service</th><th scope="col">State</th></tr></thead><tbody>${portRows(body.ports_filtered, false)}</tbody></table>`
    : html`<p>No filtered port.</p>`
}`;
}

/** A udp scan's services that answered (with what they expose) and its ports that never answered. */
function udpPorts(body: Extract<ScanResult, { ports_open: Port[] }>, changes: Html): Html {
  return html`${udpAnsweredHtml(body.ports_open)}
${udpExposureHtml(body.ports_open)}
${changes}${udpSilentHtml(body.ports_filtered)}`;
}

function findings(body: Extract<ScanResult, { ports_open: Port[] }>): Html {
  const total = SCAN_PROFILES[body.scan_type].ports.length;
  const closed = total - body.ports_open.length - body.ports_filtered.length;
  const highest =
    body.severity === undefined
      ? html``
      : html`<p class="highest">Highest severity: ${body.severity === null ? NO_SEVERITY : severityMark(body.severity)}</p>
`;
  const changes =
    body.changes === undefined || body.changes === null
      ? html``
      : html`<p class="changes">${changesWords(body.changes, SCAN_NAMES_IN_SENTENCE[body.scan_type], utc)}</p>
`;
  return html`${highest}${body.scan_type === 'udp' ? udpPorts(body, changes) : tcpPorts(body, changes)}
<dl class="facts">
<dt>Closed</dt><dd>${body.status === 'complete' ? `${closed} of ${total} ports` : 'not counted: the scan did not verify every port'}</dd>
<dt>Reverse DNS</dt><dd>${body.ptr_record ?? 'none'}</dd>
<dt>Duration</dt><dd>${(body.duration_ms / 1000).toFixed(1)} s</dd>
<dt>Kept until</dt><dd>${utc(body.expires_at)}</dd>
</dl>`;
}

function stateOf(body: ScanResult, regionsAsked: string | undefined): Html {
  switch (body.status) {
    case 'none':
      return html`<p>No ${SCAN_NAMES_IN_SENTENCE[body.scan_type]} of this address yet, or its result has expired.</p>${startForm(body.scan_type, SCAN_TITLES[body.scan_type], regionsAsked)}`;
    case 'queued':
    case 'running':
      return html`<p class="status" role="status">${body.status === 'queued' ? `Queued: ${body.queue_position} scans ahead.` : 'Running.'} ${body.chunks_complete} of ${body.total_chunks} chunks done. This page refreshes every ${REFRESH_SECONDS} seconds.</p>${regionProgress(body)}`;
    case 'failed':
      return html`<p class="warning" role="alert">The scan failed (${body.fail_reason}) after ${body.chunks_complete} of ${body.total_chunks} chunks. No result.</p>${startForm(body.scan_type, 'Try again', regionsAsked)}${regionResults(body)}`;
    case 'incomplete':
      return html`<p class="warning" role="alert">Incomplete: the host was too slow or too filtered to finish in time. This is what was found so far, not a full scan — do not treat it as clean.</p>${findings(body)}${regionResults(body)}`;
    default:
      return html`<p class="status">Complete.</p>${findings(body)}${regionResults(body)}`;
  }
}

/** The page of a scan's state: refreshes itself while the scan is in flight. `regionsAsked`: the regions it looks from (the page's `?regions=`). */
export function renderResultPage(assets: WebAssets, body: ScanResult, regionsAsked?: string): Html {
  const inFlight = body.status === 'queued' || body.status === 'running';
  const refresh = inFlight ? html`<meta http-equiv="refresh" content="${REFRESH_SECONDS}">\n` : html``;
  const content = html`<section aria-labelledby="result-heading">
<h1 id="result-heading">${SCAN_TITLES[body.scan_type]} of <span class="ip">${body.ip}</span>${regionsTitle(body, regionsAsked)}</h1>
${stateOf(body, regionsAsked)}
<p><a href="/">Back to the page</a></p>
</section>`;
  return pageFrame(assets, `selfscan — ${SCAN_NAMES_IN_SENTENCE[body.scan_type]} of ${body.ip}${regionsTitle(body, regionsAsked)}`, content, refresh);
}

/** The page of a request the service refused: what happened, in plain words, and the wait. */
export function renderRefusalPage(assets: WebAssets, code: string, reason: string, retryAfter: number | undefined): Html {
  const content = html`<section aria-labelledby="refused-heading">
<h1 id="refused-heading">Refused</h1>
<p class="warning" role="alert">${refusalWords(code, reason)}</p>
<p>The service said: <q>${reason}</q></p>
${retryAfter === undefined ? '' : html`<p>Try again in ${retryAfter} seconds.</p>`}
<p><a href="/">Back to the page</a></p>
</section>`;
  return pageFrame(assets, 'selfscan — refused', content);
}
