// A multi-region scan as its record keeps it: every region scans the whole
// range of the same address, its chunks numbered after the regions before
// it (region k owns chunks k·n to (k+1)·n − 1, n the scan type's chunks).
// Pure functions: each region's view as chunks come in, the union the
// top-level lists show, each region's end, and the ports seen differently.
import type { FailReason } from '../api/fail-reason.js';
import type { Port } from '../api/port.js';
import { SCAN_PROFILES, type ScanType } from '../api/scan-type.js';
import type { PortDifference } from '../api/vantages.js';

/** One region's part of a multi-region scan. */
export interface VantageRecord {
  region: string;
  chunksComplete: number;
  totalChunks: number;
  portsOpen: Port[];
  portsFiltered: Port[];
  /** The region's own chunk indices whose every port was verified. */
  verified: number[];
  /** When its last chunk was recorded (Unix ms); null before the first. */
  lastAt: number | null;
  /** Set when the scan ends. */
  status?: 'complete' | 'incomplete' | 'failed';
  failReason?: FailReason;
}

/** What one chunk found, as a region's view takes it. */
export interface RegionChunk {
  open: Port[];
  filtered: Port[];
  complete: boolean;
  /** When it was recorded (Unix ms). */
  at?: number;
}

/** The regions' parts of a multi-region scan just queued. */
export function newVantages(regions: readonly string[], scanType: ScanType): VantageRecord[] {
  const totalChunks = SCAN_PROFILES[scanType].totalChunks;
  return regions.map((region) => ({ region, chunksComplete: 0, totalChunks, portsOpen: [], portsFiltered: [], verified: [], lastAt: null }));
}

/** The region owning chunk `index` of the whole scan, and the chunk's index within it. */
export function regionChunk(scanType: ScanType, index: number): { region: number; local: number } {
  const perRegion = SCAN_PROFILES[scanType].totalChunks;
  return { region: Math.floor(index / perRegion), local: index % perRegion };
}

/** Adds chunk `index` (of the whole scan) to its region's view. */
export function applyVantageChunk(vantages: VantageRecord[], scanType: ScanType, index: number, chunk: RegionChunk): void {
  const { region, local } = regionChunk(scanType, index);
  const vantage = vantages[region];
  if (vantage === undefined) return;
  vantage.portsOpen.push(...chunk.open);
  vantage.portsFiltered.push(...chunk.filtered);
  if (chunk.complete) {
    vantage.chunksComplete++;
    vantage.verified.push(local);
  }
  if (chunk.at !== undefined) vantage.lastAt = Math.max(vantage.lastAt ?? 0, chunk.at);
}

const byPort = (a: Port, b: Port): number => a.port - b.port;

/**
 * The union view: open if any region reached the port (the first such
 * region's port), filtered if none did and one got no answer. Sorted.
 */
export function unionPorts(vantages: readonly VantageRecord[]): { open: Port[]; filtered: Port[] } {
  const open = new Map<number, Port>();
  for (const vantage of vantages) for (const port of vantage.portsOpen) if (!open.has(port.port)) open.set(port.port, port);
  const filtered = new Map<number, Port>();
  for (const vantage of vantages) {
    for (const port of vantage.portsFiltered) if (!open.has(port.port) && !filtered.has(port.port)) filtered.set(port.port, port);
  }
  return { open: [...open.values()].sort(byPort), filtered: [...filtered.values()].sort(byPort) };
}

/** Ends each region's view: sorted lists, and its status from the chunks it verified. */
export function settleVantages(vantages: VantageRecord[]): void {
  for (const vantage of vantages) {
    vantage.portsOpen.sort(byPort);
    vantage.portsFiltered.sort(byPort);
    const recorded = vantage.lastAt !== null || vantage.chunksComplete > 0;
    if (vantage.chunksComplete === vantage.totalChunks) vantage.status = 'complete';
    else if (recorded) vantage.status = 'incomplete';
    else {
      vantage.status = 'failed';
      vantage.failReason = 'interrupted';
    }
  }
}

/** Each port's position in a scan type's probe order, for its chunk. */
const positions = new Map<ScanType, Map<number, number>>();
function chunkOfPort(scanType: ScanType, port: number): number | undefined {
  let known = positions.get(scanType);
  if (known === undefined) positions.set(scanType, (known = new Map(SCAN_PROFILES[scanType].ports.map((p, i) => [p, i]))));
  const position = known.get(port);
  return position === undefined ? undefined : Math.floor(position / SCAN_PROFILES[scanType].chunkSize);
}

/**
 * The ports whose state is not the same from every region that verified
 * them, by port. A port's state in a region is what it found (open,
 * filtered), closed when its chunk was verified with neither, and unknown
 * otherwise. Only ports open or filtered somewhere can differ.
 */
export function portDifferences(vantages: readonly VantageRecord[], scanType: ScanType): PortDifference[] {
  const states = vantages.map((vantage) => ({
    open: new Set(vantage.portsOpen.map((p) => p.port)),
    filtered: new Set(vantage.portsFiltered.map((p) => p.port)),
    verified: new Set(vantage.verified),
  }));
  const candidates = new Set<number>();
  for (const state of states) for (const port of [...state.open, ...state.filtered]) candidates.add(port);
  const differences: PortDifference[] = [];
  for (const port of [...candidates].sort((a, b) => a - b)) {
    const difference: PortDifference = { port, open: [], filtered: [], closed: [], unknown: [] };
    const chunk = chunkOfPort(scanType, port);
    states.forEach((state, i) => {
      const region = vantages[i]!.region;
      if (state.open.has(port)) difference.open.push(region);
      else if (state.filtered.has(port)) difference.filtered.push(region);
      else if (chunk !== undefined && state.verified.has(chunk)) difference.closed.push(region);
      else difference.unknown.push(region);
    });
    const known = [difference.open, difference.filtered, difference.closed].filter((regions) => regions.length > 0);
    if (known.length > 1) differences.push(difference);
  }
  return differences;
}
