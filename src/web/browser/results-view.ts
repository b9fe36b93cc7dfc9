// A finished scan as the page's accessible content: open ports with their
// service and banner (text a scanned host chose: only ever textContent),
// filtered ports, the closed count, duration, expiry and reverse DNS. An
// incomplete scan is a warning first, never a clean result; a failed one
// says why.
import type { Port } from '../../api/port.js';
import type { ScanResultFailed, ScanResultFinished } from '../../api/scan-result.js';
import { el } from './dom.js';

const FAIL_WORDS: Readonly<Record<ScanResultFailed['fail_reason'], string>> = {
  interrupted: 'the service stopped before the scan ended',
  unreachable: 'the scanning server has no route to your address',
  scanner_error: 'a local error kept the scanner from running',
};

function table(caption: string, ports: readonly Port[], withBanner: boolean): HTMLElement {
  const headings = withBanner ? ['Port', 'Service', 'State', 'Banner'] : ['Port', 'Service', 'State'];
  const rows = ports.map((port) => {
    const cells = [el('td', '', {}, String(port.port)), el('td', '', {}, port.service ?? 'unknown'), el('td', '', {}, port.state)];
    if (withBanner) cells.push(el('td', 'banner-cell', {}, port.banner === null ? el('span', 'none', {}, 'none') : el('code', 'banner', {}, port.banner)));
    return el('tr', '', { 'data-port': String(port.port) }, ...cells);
  });
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
  const open = result.ports_open;
  parts.push(open.length > 0 ? table(`Open ports (${family})`, open, true) : el('p', 'no-open', {}, `No open port (${family}).`));
  const filtered = result.ports_filtered;
  parts.push(filtered.length > 0 ? table(`Filtered ports (${family})`, filtered, false) : el('p', '', {}, 'No filtered port.'));
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
