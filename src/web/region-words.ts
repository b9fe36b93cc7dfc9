// A multi-region scan in the page's words: each region's state, its own
// ports (the differing ones marked by a symbol and a word, never colour
// alone), and the ports the regions saw differently. One place for the
// script and the no-JavaScript pages; each escapes the words its own way.
// No DOM, no Node, no zod: the browser bundle imports it.
import type { Port } from '../api/port.js';
import type { PortDifference, Vantage, VantageProgress } from '../api/vantages.js';
import { FAIL_WORDS } from './fail-words.js';

/** How a port the regions saw differently is marked, in every region's map and table. */
export const DIFFERS_MARK = { symbol: '≠', label: 'Seen differently' } as const;

/** What a port is marked when every region that verified it agrees. */
export const SAME_WORDS = 'the same from every region that verified it';

/** The sentence shown when no port differs. */
export const NO_DIFFERENCES = 'No differences: every region saw each port it verified the same way.';

/** Regions in a sentence: `NL`, `FR and NL`, `DE, FR and NL`; `none` when empty. */
export function regionsText(regions: readonly string[]): string {
  if (regions.length === 0) return 'none';
  if (regions.length === 1) return regions[0]!;
  return `${regions.slice(0, -1).join(', ')} and ${regions.at(-1)}`;
}

/** A region's state while the scan runs. */
export function progressWords(vantage: VantageProgress): string {
  const open = vantage.ports_open.length;
  return `${vantage.chunks_complete} of ${vantage.total_chunks} chunks verified from ${vantage.region}, ${open} open and ${vantage.filtered_count} filtered so far.`;
}

/** A region's end: complete, incomplete or failed (and why), in words. */
export function vantageWords(vantage: Vantage): string {
  const from = vantage.region;
  if (vantage.status === 'complete') return `Complete: every port verified from ${from}, in ${(vantage.duration_ms / 1000).toFixed(1)} s.`;
  if (vantage.status === 'incomplete') {
    return `Incomplete: only ${vantage.chunks_complete} of ${vantage.total_chunks} chunks verified from ${from} before the time ran out. Not a full view from here.`;
  }
  const why = vantage.fail_reason === undefined ? 'no reason given' : `${FAIL_WORDS[vantage.fail_reason]} (${vantage.fail_reason})`;
  return `Failed: nothing was learned from ${from}: ${why}.`;
}

/** A port's state from one region, in words. */
export type RegionPortState = 'open' | 'filtered' | 'closed' | 'not verified';

/** One row of a region's own table. */
export interface RegionPortRow {
  port: number;
  service: string | null;
  state: RegionPortState;
  /** Whether the regions saw this port differently. */
  differs: boolean;
}

/** Each port's service name, from any port list of the result. */
export function serviceNames(lists: readonly (readonly Port[])[]): Map<number, string | null> {
  const names = new Map<number, string | null>();
  for (const list of lists) for (const port of list) if (!names.has(port.port)) names.set(port.port, port.service);
  return names;
}

/** What a region's table lists: its open and filtered ports, and every port seen differently (closed or not verified here), by port. */
export function regionPortRows(vantage: Vantage, differences: readonly PortDifference[], services: ReadonlyMap<number, string | null>): RegionPortRow[] {
  const differing = new Map(differences.map((difference) => [difference.port, difference]));
  const rows = new Map<number, RegionPortRow>();
  const add = (port: number, state: RegionPortState): void => {
    if (!rows.has(port)) rows.set(port, { port, service: services.get(port) ?? null, state, differs: differing.has(port) });
  };
  for (const port of vantage.ports_open) add(port.port, 'open');
  for (const port of vantage.ports_filtered) add(port.port, 'filtered');
  for (const difference of differences) add(difference.port, difference.closed.includes(vantage.region) ? 'closed' : 'not verified');
  return [...rows.values()].sort((a, b) => a.port - b.port);
}

/** The columns of the "Seen differently" table after the port and its service: which regions saw each state. */
export const DIFFERENCE_COLUMNS: readonly { heading: string; regions: (difference: PortDifference) => readonly string[] }[] = [
  { heading: 'Open from', regions: (difference) => difference.open },
  { heading: 'Filtered from', regions: (difference) => difference.filtered },
  { heading: 'Closed from', regions: (difference) => difference.closed },
  { heading: 'Not verified from', regions: (difference) => difference.unknown },
];

/** A summary of the differences for the live status: `no differences`, `2 ports seen differently`. */
export function differencesSummary(differences: readonly PortDifference[]): string {
  if (differences.length === 0) return 'no differences between regions';
  return `${differences.length} ${differences.length === 1 ? 'port' : 'ports'} seen differently`;
}
