// One pane of the page: a scan of the caller over one address family,
// through that family's origin. It reads the scan's stream and keeps its
// parts in step: the live status, the port map (a grid of the fast or udp
// scan's ports, the deep scan's canvas), the results table, the changes
// since last time (the server's, when it keeps them; else what this
// browser remembers) and the check snippet. A scan from several regions shows one map per
// region instead (region-maps.ts), and the ports the regions saw
// differently after the results.

import type { RegionsAsked } from '../../api/regions-asked.js';
import type { ScanResultFailed, ScanResultFinished } from '../../api/scan-result.js';
import type { ScanType } from '../../api/scan-type.js';
import type { SseProgress, SseQueued } from '../../api/sse-events.js';
import { changesWords, SEVERITY_MARKS } from '../exposure-words.js';
import type { PageData, PaneFacts } from '../page-data.js';
import { differencesSummary, regionsText } from '../region-words.js';
import { SCAN_NAMES_IN_SENTENCE, SCAN_TITLES } from '../scan-names.js';
import { type Changes, compareAndRemember } from './changes.js';
import { DeepMap } from './deep-map.js';
import { byId, el, uniqueId } from './dom.js';
import { LiveStatus } from './live-status.js';
import { PortGrid } from './port-grid.js';
import { chunkPorts, type PortMap } from './port-states.js';
import { RegionMaps } from './region-maps.js';
import { differencesView, servicesOf } from './region-tables.js';
import { dateOf, failedView, finishedView } from './results-view.js';
import { requestScan } from './scan-request.js';
import { checkSnippet, type SnippetList } from './snippets.js';
import type { StartGate } from './start-gate.js';

/** What a pane shows of a scan in flight. */
interface Flight {
  scanType: ScanType;
  map: PortMap;
  /** Chunks verified, updated on every event: the live region says it only now and then. */
  bar: HTMLProgressElement;
  startedAt: number;
  etaSeconds: number;
  status: string;
  /** One map per region, in place of `map`, once the scan names several regions. */
  regional: RegionMaps | null;
}

/** The regions a multi-region body looks from; empty for a scan from one place. */
const regionsOf = (body: { regions?: string[]; vantages?: { region: string }[] }): string[] =>
  body.regions ?? body.vantages?.map((vantage) => vantage.region) ?? [];

function changesText(changes: Changes | null, name: string, family: string): string {
  if (changes === null) return `This is the first ${name} over ${family} this browser remembers; the next one will be compared with it.`;
  return changesWords({ since: changes.since, opened: changes.newlyOpen, closed: changes.newlyClosed, changed: [] }, name, dateOf);
}

export class ScanPane {
  readonly element: HTMLElement;
  private readonly live: LiveStatus;
  private readonly mapSlot = el('div', 'pane-map');
  private readonly results = el('div', 'pane-results');
  private readonly changes = el('p', 'changes', { hidden: '' });
  private readonly label: string;
  private controller: AbortController | null = null;

  constructor(
    private readonly data: PageData,
    private readonly facts: PaneFacts,
    private readonly gate: StartGate,
    private readonly snippets: SnippetList,
  ) {
    const headingId = uniqueId('pane-heading');
    this.label = facts.family;
    const region = el('p', 'status', { role: 'status', 'aria-live': 'polite' }, 'Press Fast scan, Deep scan or UDP scan to start.');
    this.live = new LiveStatus(region);
    this.element = el(
      'section',
      'pane',
      { 'aria-labelledby': headingId, 'data-family': facts.family, 'data-state': 'idle' },
      el('h2', '', { id: headingId }, `${facts.family} scan`),
      region,
      this.mapSlot,
      this.results,
      this.changes,
    );
  }

  /** Starts (or joins) a scan of this type, from `regionsAsked` when given; a scan this pane was showing is let go. */
  async run(scanType: ScanType, regionsAsked?: RegionsAsked): Promise<void> {
    this.controller?.abort();
    const controller = new AbortController();
    this.controller = controller;
    const name = SCAN_TITLES[scanType];
    const map = this.newMap(scanType);
    const bar = el('progress', 'chunks', { max: '1', value: '0', 'aria-label': `${name}: chunks verified over ${this.label}` });
    this.mapSlot.replaceChildren(bar, map.element);
    this.results.replaceChildren();
    this.changes.hidden = true;
    this.setState('starting');
    this.live.say(`${name}: starting…`, true);
    try {
      await this.follow(scanType, map, bar, controller.signal, regionsAsked);
    } catch (error) {
      if (controller.signal.aborted) return;
      this.setState('lost');
      this.live.say(`${name}: the connection was lost before the scan ended (${String(error)}). Press the button again to rejoin it.`, true);
    }
  }

  /** An empty map of a scan type's ports; `region`: the one region it shows. */
  private newMap(scanType: ScanType, region?: string): PortMap {
    const over = `over ${this.label}${region === undefined ? '' : ` from ${region}`}`;
    if (scanType === 'fast') return new PortGrid(this.data.fastPorts, `${SCAN_TITLES.fast} ports ${over}`);
    if (scanType === 'udp') return new PortGrid(this.data.udpPorts, `${SCAN_TITLES.udp} ports ${over}`, 'udp');
    return new DeepMap(`Map of ports 1 to 65,535 ${over}, 256 per row; use the arrow keys to read a port`);
  }

  /** The flight's maps of `regions`, made (in place of its one map) at the first event that names them. */
  private regionalOf(flight: Flight, regions: readonly string[]): RegionMaps {
    if (flight.regional === null || !flight.regional.shows(regions)) {
      flight.regional = new RegionMaps(regions, (region) => this.newMap(flight.scanType, region));
      this.mapSlot.replaceChildren(flight.bar, flight.regional.element);
    }
    return flight.regional;
  }

  private async follow(scanType: ScanType, map: PortMap, bar: HTMLProgressElement, signal: AbortSignal, regionsAsked?: RegionsAsked): Promise<void> {
    const name = SCAN_TITLES[scanType];
    const answer = await requestScan(this.facts.origin, scanType, signal, regionsAsked);
    if (answer.kind === 'unreachable') {
      this.setState('unreachable');
      this.mapSlot.replaceChildren();
      this.live.say(`No ${this.label} path: your browser could not reach the service over ${this.label}.`, true);
      return;
    }
    this.gate.showBudget(answer.budget, answer.kind === 'refused' ? answer.status : 200);
    if (answer.kind === 'refused') {
      this.setState('refused');
      this.mapSlot.replaceChildren();
      this.live.say(`${name}: not started (${answer.status} ${answer.error}).`, true);
      this.gate.refuse(answer.error, answer.reason, answer.retryAfter, this.data.panes.length > 1 ? this.label : null);
      return;
    }
    const flight: Flight = { scanType, map, bar, startedAt: Date.now(), etaSeconds: 0, status: '', regional: null };
    for await (const frame of answer.frames) {
      const payload: unknown = JSON.parse(frame.data);
      if (frame.event === 'scan:queued') this.onQueued(flight, payload as SseQueued);
      else if (frame.event === 'scan:progress') this.onProgress(flight, payload as SseProgress);
      else if (frame.event === 'scan:complete') return this.onFinished(flight, payload as ScanResultFinished);
      else if (frame.event === 'scan:failed') return this.onFailed(flight, payload as ScanResultFailed);
    }
    throw new Error('the stream closed early');
  }

  private onQueued(flight: Flight, event: SseQueued): void {
    flight.etaSeconds = event.eta_seconds;
    if (event.vantages !== undefined) this.regionalOf(flight, regionsOf(event)).progress(event.vantages, null);
    this.inFlight(flight, event.status, event.queue_position, event.chunks_complete, event.total_chunks);
  }

  private onProgress(flight: Flight, event: SseProgress): void {
    if (event.eta_seconds !== undefined) flight.etaSeconds = event.eta_seconds; // the path's, once known
    if (event.vantages !== undefined) {
      const { region, chunk_index: index } = event;
      const chunk = region !== undefined && index !== undefined ? { region, ports: chunkPorts(this.data, flight.scanType, index) } : null;
      this.regionalOf(flight, regionsOf(event)).progress(event.vantages, chunk);
    } else {
      const open = new Set(event.ports_open.map((port) => port.port));
      if (event.chunk_index !== undefined) flight.map.chunkDone(chunkPorts(this.data, flight.scanType, event.chunk_index), open);
      flight.map.markOpen(open);
    }
    this.inFlight(flight, event.status, event.queue_position, event.chunks_complete, event.total_chunks);
  }

  private inFlight(flight: Flight, status: 'queued' | 'running', position: number, done: number, total: number): void {
    const changed = status !== flight.status;
    flight.status = status;
    flight.bar.max = total;
    flight.bar.value = done;
    this.setState(status);
    const name = SCAN_TITLES[flight.scanType];
    const chunks = `${done} of ${total} chunks done`;
    const eta = flight.etaSeconds > 0 ? `about ${flight.etaSeconds} s expected` : 'no estimate yet';
    if (status === 'queued') {
      const place = position === 0 ? 'next in line for a free scanner' : `${position} ${position === 1 ? 'scan' : 'scans'} ahead`;
      this.live.say(`${name} queued: ${place}. ${chunks}; ${eta}.`, changed);
      return;
    }
    const elapsed = Math.round((Date.now() - flight.startedAt) / 1000);
    this.live.say(`${name} running: ${chunks}, ${elapsed} s elapsed, ${eta}.`, changed);
  }

  private onFinished(flight: Flight, result: ScanResultFinished): void {
    const name = SCAN_TITLES[flight.scanType];
    const open = result.ports_open.map((port) => port.port);
    const regions = regionsOf(result);
    const differences = result.differences ?? [];
    const total = { fast: this.data.fastPorts.length, deep: 65535, udp: this.data.udpPorts.length }[flight.scanType];
    const views = finishedView(result, total, this.label);
    if (result.vantages === undefined) {
      flight.map.finish(new Set(open), new Set(result.ports_filtered.map((port) => port.port)), result.status === 'complete');
    } else {
      const services = servicesOf(result);
      this.regionalOf(flight, regions).finish(result.vantages, differences, services, this.label);
      views.push(differencesView(differences, services, this.label));
    }
    if (result.status === 'complete') flight.bar.value = flight.bar.max;
    this.results.replaceChildren(...views);
    this.setState(result.status);
    const worst = result.severity === undefined || result.severity === null ? '' : `, highest severity ${SEVERITY_MARKS[result.severity].label}`;
    const from = regions.length === 0 ? '' : ` from ${regionsText(regions)} (${differencesSummary(differences)})`;
    const summary = `${open.length} open, ${result.ports_filtered.length} filtered${worst}, in ${(result.duration_ms / 1000).toFixed(1)} s${from}`;
    this.live.say(result.status === 'complete' ? `${name} complete: ${summary}.` : `${name} INCOMPLETE: ${summary}; not every port was verified.`, true);
    if (result.ptr_record !== null && this.facts.family === this.data.family) byId('caller-ptr').textContent = `, reverse DNS ${result.ptr_record}`;
    // What this browser remembers is kept apart per set of regions: a view from several is another view.
    const memory = regions.length === 0 ? this.label : `${this.label} from ${regionsText(regions)}`;
    const remembered = result.status === 'complete' ? compareAndRemember(memory, flight.scanType, open, result.completed_at) : null;
    if (result.changes !== undefined && result.changes !== null) {
      this.changes.textContent = changesWords(result.changes, SCAN_NAMES_IN_SENTENCE[flight.scanType], dateOf);
    } else if (result.status === 'complete') {
      this.changes.textContent = changesText(remembered, SCAN_NAMES_IN_SENTENCE[flight.scanType], memory);
    } else {
      this.changes.textContent = 'Not compared with the last scan: this one is incomplete.';
    }
    this.changes.hidden = false;
    // The check scans from one place: it can promise the union only when every region saw the same.
    if (differences.length > 0) return;
    this.snippets.setCheck(this.label, checkSnippet(this.facts.origin || window.location.origin, flight.scanType, open, this.label, result.severity));
  }

  private onFailed(flight: Flight, result: ScanResultFailed): void {
    if (result.vantages !== undefined) {
      this.regionalOf(flight, regionsOf(result)).finish(result.vantages, result.differences ?? [], servicesOf(result), this.label);
    }
    this.results.replaceChildren(failedView(result));
    this.setState('failed');
    this.live.say(`${SCAN_TITLES[flight.scanType]} failed (${result.fail_reason}).`, true);
  }

  private setState(state: string): void {
    this.element.dataset.state = state;
  }
}
