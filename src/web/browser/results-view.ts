// A finished scan as the page's accessible content: the highest severity,
// open ports with their service, severity and banner, what each exposes
// (why, what to do, its facts in words; text a scanned host chose is only
// ever textContent), filtered ports, the closed count, duration, expiry and
// reverse DNS. A result without facts (interface 1.0) shows as before. A
// udp scan's ports show in their own words (udp-results-view.ts). An
// incomplete scan is a warning first, never a clean result; a failed one
// says why.
import type { Port } from '../../api/port.js';
import type { ScanResultFailed, ScanResultFinished } from '../../api/scan-result.js';
import { NO_SEVERITY, portFactLines } from '../exposure-words.js';
import { FAIL_WORDS } from '../fail-words.js';
import { el, uniqueId } from './dom.js';
import { exposureSection, resultsTable, severityMark } from './result-table.js';
import { udpAnsweredView, udpExposureView, udpSilentView } from './udp-results-view.js';

function table(caption: string, ports: readonly Port[], withBanner: boolean): HTMLElement {
  const withSeverity = withBanner && ports.some((port) => port.risk !== undefined);
  const headings = ['Port', 'Service', 'State', ...(withSeverity ? ['Severity'] : []), ...(withBanner ? ['Banner'] : [])];
  const rows = ports.map((port) => {
    const cells = [el('td', '', {}, String(port.port)), el('td', '', {}, port.service ?? 'unknown'), el('td', '', {}, port.state)];
    if (withSeverity) cells.push(el('td', '', {}, port.risk === undefined ? 'not rated' : severityMark(port.risk.severity)));
    if (withBanner) cells.push(el('td', 'banner-cell', {}, port.banner === null ? el('span', 'none', {}, 'none') : el('code', 'banner', {}, port.banner)));
    return el('tr', '', { 'data-port': String(port.port) }, ...cells);
  });
  return resultsTable(caption, headings, rows);
}

/** One open port the server rated or learned about: its severity, why, what to do, and its facts. */
function exposedPort(port: Port): HTMLElement {
  const headingId = uniqueId('exposure');
  const heading = el('h4', '', { id: headingId }, `Port ${port.port}${port.service === null ? '' : ` (${port.service})`}`);
  const parts: HTMLElement[] = [heading];
  if (port.risk !== undefined) {
    heading.append(' ', severityMark(port.risk.severity));
    parts.push(el('p', 'why', {}, port.risk.why), el('p', 'fix', {}, el('strong', '', {}, 'What to do:'), ` ${port.risk.fix}`));
  }
  const facts = portFactLines(port);
  if (facts.length > 0) parts.push(el('dl', 'port-facts', {}, ...facts.flatMap(({ term, text }) => [el('dt', '', {}, term), el('dd', '', {}, text)])));
  const severityClass = port.risk === undefined ? '' : ` exposure-${port.risk.severity}`;
  return el('article', `exposure-port${severityClass}`, { 'aria-labelledby': headingId, 'data-port': String(port.port) }, ...parts);
}

/** What the open ports expose, or nothing when the result has no facts. */
function exposure(ports: readonly Port[], family: string): HTMLElement[] {
  const known = ports.filter((port) => port.risk !== undefined || port.facts !== undefined);
  if (known.length === 0) return [];
  return [exposureSection(`What the open ports expose (${family})`, known.map(exposedPort))];
}

/** A TCP scan's open ports, what they expose, and its filtered ports. */
function tcpPortsView(open: readonly Port[], filtered: readonly Port[], family: string): HTMLElement[] {
  return [
    open.length > 0 ? table(`Open ports (${family})`, open, true) : el('p', 'no-open', {}, `No open port (${family}).`),
    ...exposure(open, family),
    filtered.length > 0 ? table(`Filtered ports (${family})`, filtered, false) : el('p', '', {}, 'No filtered port.'),
  ];
}

/** A udp scan's services that answered, what they expose, and its ports that never answered. */
function udpPortsView(open: readonly Port[], filtered: readonly Port[], family: string): HTMLElement[] {
  return [udpAnsweredView(open, family), ...udpExposureView(open, family), udpSilentView(filtered, family)];
}

function fact(term: string, value: string): HTMLElement[] {
  return [el('dt', '', {}, term), el('dd', '', {}, value)];
}

/** When a result is kept until, in the reader's own time zone. */
export function dateOf(seconds: number): string {
  return new Date(seconds * 1000).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** The elements showing a finished scan; `total` is how many ports the scan type covers; `family` names the pane. */
export function finishedView(result: ScanResultFinished, total: number, family: string): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (result.status === 'incomplete') {
    parts.push(
      el(
        'p',
        'warning',
        {},
        el('strong', '', {}, 'Incomplete scan. '),
        `Only ${result.chunks_complete} of ${result.total_chunks} chunks were verified before the time ran out: the host was too slow or too filtered. This is what was found so far, not a full scan — do not treat it as clean.`,
      ),
    );
  }
  if (result.severity !== undefined)
    parts.push(el('p', 'highest', {}, 'Highest severity: ', result.severity === null ? NO_SEVERITY : severityMark(result.severity)));
  const open = result.ports_open;
  const filtered = result.ports_filtered;
  parts.push(...(result.scan_type === 'udp' ? udpPortsView(open, filtered, family) : tcpPortsView(open, filtered, family)));
  const closed = total - open.length - filtered.length;
  parts.push(
    el(
      'dl',
      'facts',
      {},
      ...fact('Closed', result.status === 'complete' ? `${closed} of ${total} ports` : 'not counted: the scan did not verify every port'),
      ...fact('Reverse DNS', result.ptr_record ?? 'none'),
      ...fact('Duration', `${(result.duration_ms / 1000).toFixed(1)} s`),
      ...fact('Kept until', dateOf(result.expires_at)),
    ),
  );
  return parts;
}

/** The element showing a failed scan. */
export function failedView(result: ScanResultFailed): HTMLElement {
  const why = FAIL_WORDS[result.fail_reason];
  return el(
    'p',
    'warning',
    {},
    el('strong', '', {}, 'The scan failed: '),
    `${why} (${result.fail_reason}), after ${result.chunks_complete} of ${result.total_chunks} chunks. There is no result.`,
  );
}
