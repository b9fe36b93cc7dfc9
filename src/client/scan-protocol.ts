// What a scan type means to the check client: the ports it covers and the
// protocol they are spoken of in (TCP for fast and deep, UDP for udp), so
// checks and reports name a UDP port `53/udp` while TCP ports keep their
// names (`port 22`, `22/tcp`).
import { DEEP_PORTS, FAST_PORTS, UDP_PORTS } from '../api/scan-ports.js';
import type { ScanType } from '../api/scan-type.js';

export type Protocol = 'tcp' | 'udp';

/** The ports each scan type covers. */
export const SCANNED_PORTS: Readonly<Record<ScanType, readonly number[]>> = { fast: FAST_PORTS, deep: DEEP_PORTS, udp: UDP_PORTS };

/** The protocol of a scan type's ports. */
export function protocolOf(scanType: ScanType): Protocol {
  return scanType === 'udp' ? 'udp' : 'tcp';
}

/** How a check names a port: `port 22` (TCP, as always), `port 53/udp`. */
export function portWord(port: number, protocol: Protocol): string {
  return protocol === 'udp' ? `port ${port}/udp` : `port ${port}`;
}
