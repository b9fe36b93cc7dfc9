// A udp scan's ports as the page's accessible content: each UDP service
// that answered as `53/udp` with its severity, amplification and first
// answer; what each exposes (why, what to do, the amplification, the bytes
// each way, every answer in words: text the scanned host chose is only
// ever textContent); and the ports that never answered, which UDP cannot
// tell open from filtered. A scan where none answered says so plainly.
// The words are udp-words.ts's, shared with the no-JavaScript page.
import type { Port } from '../../api/port.js';
import { factorWords, NO_UDP_SILENT, noUdpAnswerWords, UDP_SILENT_WORDS, udpFactLines, udpPortName } from '../udp-words.js';
import { el, uniqueId } from './dom.js';
import { exposureSection, resultsTable, severityMark } from './result-table.js';

/** A table row of a UDP port: `53/udp` and its service, then `cells`. */
function udpPortRow(port: Port, ...cells: HTMLElement[]): HTMLTableRowElement {
  return el('tr', '', { 'data-port': String(port.port) }, el('td', '', {}, udpPortName(port.port)), el('td', '', {}, port.service ?? 'unknown'), ...cells);
}

/** The UDP services that answered, or the sentence that none did. */
export function udpAnsweredView(ports: readonly Port[], family: string): HTMLElement {
  if (ports.length === 0) return el('p', 'no-open', {}, noUdpAnswerWords(family));
  const rows = ports.map((port) =>
    udpPortRow(
      port,
      el('td', '', {}, port.state),
      el('td', '', {}, port.risk === undefined ? 'not rated' : severityMark(port.risk.severity)),
      el('td', '', {}, port.facts?.udp === undefined ? 'unknown' : factorWords(port.facts.udp.amplification)),
      el('td', 'banner-cell', {}, port.banner === null ? el('span', 'none', {}, 'none') : el('code', 'banner', {}, port.banner)),
    ),
  );
  return resultsTable(`UDP services that answered (${family})`, ['Port', 'Service', 'State', 'Severity', 'Amplification', 'First answer'], rows);
}

/** One UDP service that answered: its severity, why, what to do, and what its answers showed. */
function exposedUdpPort(port: Port): HTMLElement {
  const headingId = uniqueId('exposure');
  const heading = el('h4', '', { id: headingId }, `${udpPortName(port.port)}${port.service === null ? '' : ` (${port.service})`}`);
  const parts: HTMLElement[] = [heading];
  if (port.risk !== undefined) {
    heading.append(' ', severityMark(port.risk.severity));
    parts.push(el('p', 'why', {}, port.risk.why), el('p', 'fix', {}, el('strong', '', {}, 'What to do:'), ` ${port.risk.fix}`));
  }
  const udp = port.facts?.udp;
  if (udp !== undefined) {
    const facts = udpFactLines(udp).flatMap(({ term, text }) => [el('dt', '', {}, term), el('dd', '', {}, text)]);
    if (udp.evidence.length > 0) {
      facts.push(el('dt', '', {}, 'Answers'), el('dd', '', {}, el('ul', 'evidence', {}, ...udp.evidence.map((line) => el('li', '', {}, line)))));
    }
    parts.push(el('dl', 'port-facts', {}, ...facts));
  }
  const severityClass = port.risk === undefined ? '' : ` exposure-${port.risk.severity}`;
  return el('article', `exposure-port${severityClass}`, { 'aria-labelledby': headingId, 'data-port': String(port.port) }, ...parts);
}

/** What each UDP service that answered exposes; nothing when none did. */
export function udpExposureView(ports: readonly Port[], family: string): HTMLElement[] {
  if (ports.length === 0) return [];
  return [exposureSection(`What the UDP services expose (${family})`, ports.map(exposedUdpPort))];
}

/** The UDP ports that never answered, or the sentence that none stayed silent. */
export function udpSilentView(ports: readonly Port[], family: string): HTMLElement {
  if (ports.length === 0) return el('p', '', {}, NO_UDP_SILENT);
  const rows = ports.map((port) => udpPortRow(port, el('td', '', {}, UDP_SILENT_WORDS)));
  return resultsTable(`UDP ports with no answer (${family})`, ['Port', 'Service', 'State'], rows);
}
