// A udp scan's ports on the no-JavaScript result page: each UDP service
// that answered as `53/udp` with its severity, amplification and first
// answer; what each exposes (why, what to do, the amplification, the bytes
// each way, every answer in words); and the ports that never answered,
// which UDP cannot tell open from filtered. A scan where none answered
// says so plainly. The words are udp-words.ts's, shared with the script.
import type { Port } from '../api/port.js';
import { type Html, html } from './html.js';
import { severityMark } from './severity-html.js';
import { factorWords, NO_UDP_SILENT, noUdpAnswerWords, UDP_SILENT_WORDS, udpFactLines, udpPortName } from './udp-words.js';

/** A results table with its caption and column headings, scrollable by keyboard as a named region (never the page sideways). */
function table(caption: string, headings: readonly string[], rows: Html[]): Html {
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${caption}"><table class="results">
<caption>${caption}</caption>
<thead><tr>${headings.map((heading) => html`<th scope="col">${heading}</th>`)}</tr></thead>
<tbody>${rows}</tbody>
</table></div>`;
}

const cells = (values: readonly (Html | string)[]): Html => html`${values.map((value) => html`<td>${value}</td>`)}`;

/** The UDP services that answered, or the sentence that none did. */
export function udpAnsweredHtml(ports: readonly Port[]): Html {
  if (ports.length === 0) return html`<p class="no-open">${noUdpAnswerWords()}</p>`;
  const rows = ports.map(
    (port) =>
      html`<tr data-port="${port.port}">${cells([
        udpPortName(port.port),
        port.service ?? 'unknown',
        port.state,
        port.risk === undefined ? 'not rated' : severityMark(port.risk.severity),
        port.facts?.udp === undefined ? 'unknown' : factorWords(port.facts.udp.amplification),
        html`<code>${port.banner ?? ''}</code>`,
      ])}</tr>`,
  );
  return table('UDP services that answered', ['Port', 'Service', 'State', 'Severity', 'Amplification', 'First answer'], rows);
}

/** Its severity's why and what to do, when rated. */
function riskHtml(port: Port): Html {
  if (port.risk === undefined) return html``;
  return html`<p class="why">${port.risk.why}</p>
<p class="fix"><strong>What to do:</strong> ${port.risk.fix}</p>`;
}

/** What its answers showed: amplification, bytes, named facts, and each answer in words. */
function answersHtml(port: Port): Html {
  const udp = port.facts?.udp;
  if (udp === undefined) return html``;
  const lines = udpFactLines(udp).map(({ term, text }) => html`<dt>${term}</dt><dd>${text}</dd>`);
  const evidence = udp.evidence.map((line) => html`<li>${line}</li>`);
  return html`<dl class="port-facts">${lines}${evidence.length === 0 ? '' : html`<dt>Answers</dt><dd><ul class="evidence">${evidence}</ul></dd>`}</dl>`;
}

function exposedUdpPort(port: Port): Html {
  const severity = port.risk === undefined ? '' : ` exposure-${port.risk.severity}`;
  const name = `${udpPortName(port.port)}${port.service === null ? '' : ` (${port.service})`}`;
  return html`<article class="exposure-port${severity}" aria-labelledby="exposure-${port.port}" data-port="${port.port}">
<h3 id="exposure-${port.port}">${name}${port.risk === undefined ? '' : html` ${severityMark(port.risk.severity)}`}</h3>
${riskHtml(port)}
${answersHtml(port)}
</article>`;
}

/** What each UDP service that answered exposes; nothing when none did. */
export function udpExposureHtml(ports: readonly Port[]): Html {
  if (ports.length === 0) return html``;
  return html`<section class="exposure" aria-labelledby="exposure-heading">
<h2 id="exposure-heading">What the UDP services expose</h2>
${ports.map(exposedUdpPort)}
</section>`;
}

/** The UDP ports that never answered, or the sentence that none stayed silent. */
export function udpSilentHtml(ports: readonly Port[]): Html {
  if (ports.length === 0) return html`<p>${NO_UDP_SILENT}</p>`;
  const rows = ports.map((port) => html`<tr data-port="${port.port}">${cells([udpPortName(port.port), port.service ?? 'unknown', UDP_SILENT_WORDS])}</tr>`);
  return table('UDP ports with no answer', ['Port', 'Service', 'State'], rows);
}
