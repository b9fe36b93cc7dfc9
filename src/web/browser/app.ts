// The page's script: it takes over the scan form (a click starts a scan in
// every pane, each through its own origin, from every region when that box
// is ticked; nothing starts on load) and fills the snippets. Each part
// lives in its own module.
import type { ScanType } from '../../api/scan-type.js';
import { PAGE_DATA_ID, type PageData } from '../page-data.js';
import { byId } from './dom.js';
import { ScanPane } from './scan-pane.js';
import { baseSnippets, SnippetList } from './snippets.js';
import { StartGate } from './start-gate.js';

const data = JSON.parse(byId(PAGE_DATA_ID).textContent ?? '{}') as PageData;
const form = byId<HTMLFormElement>('scan-form');
const gate = new StartGate(form, data.limits.edge);
const snippets = new SnippetList(baseSnippets(window.location.origin));
/** The "from every region" box: on the page only where the cluster has several regions. */
const everyRegion = document.getElementById('regions-all') as HTMLInputElement | null;
const panes = data.panes.map((facts) => new ScanPane(data, facts, gate, snippets));
byId('panes').replaceChildren(...panes.map((pane) => pane.element));

form.addEventListener('submit', (event) => {
  event.preventDefault();
  const button = event.submitter instanceof HTMLButtonElement ? event.submitter.value : '';
  const scanType: ScanType = button === 'deep' || button === 'udp' ? button : 'fast';
  if (!gate.open) return;
  gate.clearNotice();
  const regionsAsked = everyRegion?.checked === true ? 'all' : undefined;
  for (const pane of panes) void pane.run(scanType, regionsAsked);
});
