// A multi-region scan's maps, one per region side by side: each a fast
// grid or a deep map its region fills from its own chunks (scan:progress
// names the region, and the chunk counted within it), titled with the
// region and saying its state in words. Once the scan ends each map marks
// the ports the regions saw differently, and its region's table lists them.
import type { PortDifference, Vantage, VantageProgress } from '../../api/vantages.js';
import { progressWords, vantageWords } from '../region-words.js';
import { el, uniqueId } from './dom.js';
import type { PortMap } from './port-states.js';
import { regionTable } from './region-tables.js';

interface RegionView {
  element: HTMLElement;
  status: HTMLParagraphElement;
  map: PortMap;
  /** Where the region's table goes once the scan ends. */
  table: HTMLElement;
}

const portsOf = (ports: readonly { port: number }[]): Set<number> => new Set(ports.map((port) => port.port));

export class RegionMaps {
  readonly element = el('div', 'region-maps');
  private readonly views = new Map<string, RegionView>();

  /** `makeMap`: a new, empty map for a region. */
  constructor(
    readonly regions: readonly string[],
    makeMap: (region: string) => PortMap,
  ) {
    for (const region of regions) {
      const headingId = uniqueId('region-heading');
      const status = el('p', 'region-status', {}, `Waiting for ${region}.`);
      const map = makeMap(region);
      const table = el('div', 'region-table');
      const element = el(
        'section',
        'region-view',
        { 'aria-labelledby': headingId, 'data-region': region, 'data-status': 'running' },
        el('h3', '', { id: headingId }, `From ${region}`),
        status,
        map.element,
        table,
      );
      this.views.set(region, { element, status, map, table });
      this.element.append(element);
    }
  }

  /** Whether these are the maps of `regions`. */
  shows(regions: readonly string[]): boolean {
    return regions.length === this.regions.length && regions.every((region, i) => region === this.regions[i]);
  }

  /** An in-flight event: each region's progress and open ports; `chunk`, the chunk it reports (of `region`), if any. */
  progress(vantages: readonly VantageProgress[], chunk: { region: string; ports: readonly number[] } | null): void {
    if (chunk !== null) {
      const open = vantages.find((vantage) => vantage.region === chunk.region)?.ports_open ?? [];
      this.views.get(chunk.region)?.map.chunkDone(chunk.ports, portsOf(open));
    }
    for (const vantage of vantages) {
      const view = this.views.get(vantage.region);
      if (view === undefined) continue;
      view.map.markOpen(portsOf(vantage.ports_open));
      view.status.textContent = progressWords(vantage);
    }
  }

  /** The scan's end: each region's own result and state, and the ports seen differently marked in every map. */
  finish(vantages: readonly Vantage[], differences: readonly PortDifference[], services: ReadonlyMap<number, string | null>, family: string): void {
    const differing = new Set(differences.map((difference) => difference.port));
    for (const vantage of vantages) {
      const view = this.views.get(vantage.region);
      if (view === undefined) continue;
      view.map.finish(portsOf(vantage.ports_open), portsOf(vantage.ports_filtered), vantage.status === 'complete');
      view.map.markDiffering(differing);
      view.status.textContent = vantageWords(vantage);
      view.element.dataset.status = vantage.status;
      view.table.replaceChildren(regionTable(vantage, differences, services, family));
    }
  }
}
