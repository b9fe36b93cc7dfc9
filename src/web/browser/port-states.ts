// What the page knows of each port while a scan runs and after it: the
// chunk just verified (from scan:progress's chunk_index) turns its ports
// closed unless they are open; the final result adds the filtered ones
// and, from several regions, which ports the regions saw differently.
import type { ScanType } from '../../api/scan-type.js';
import type { PageData } from '../page-data.js';

export type CellState = 'pending' | 'open' | 'closed' | 'filtered' | 'unverified';

/** The ports of chunk `index` of a scan type. */
export function chunkPorts(data: PageData, scanType: ScanType, index: number): number[] {
  if (scanType !== 'deep') {
    const size = data.chunkSize[scanType];
    const ports = scanType === 'fast' ? data.fastPorts : data.udpPorts;
    return ports.slice(index * size, (index + 1) * size).map((fact) => fact.port);
  }
  const size = data.chunkSize.deep;
  const first = index * size + 1;
  const last = Math.min((index + 1) * size, 65535);
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

/** A view of port states (the fast or udp grid, the deep map). */
export interface PortMap {
  /** The element to place in the pane. */
  readonly element: HTMLElement;
  /** The ports of a verified chunk: `open` ones open, the rest closed. */
  chunkDone(ports: readonly number[], open: ReadonlySet<number>): void;
  /** Ports known open so far (a chunk may report them before its neighbours finish). */
  markOpen(open: ReadonlySet<number>): void;
  /** The final result: open and filtered ports; `complete` when every chunk was verified (the rest closed). */
  finish(open: ReadonlySet<number>, filtered: ReadonlySet<number>, complete: boolean): void;
  /** Ports the regions of a multi-region scan saw differently: marked by a shape and in words. */
  markDiffering(ports: ReadonlySet<number>): void;
}
