// The three scan types of the interface and the facts about each that clients
// need (which ports, how many chunks): one place, shared by the scanner
// side and every wire shape that names a scan type.
import * as z from 'zod';

import { DEEP_PORTS, FAST_PORTS, UDP_PORTS } from './scan-ports.js';

export { DEEP_PORTS, FAST_PORTS, UDP_PORTS };

/** `fast`, `deep` or `udp` (since 1.3). */
export const ScanType = z.enum(['fast', 'deep', 'udp']).meta({
  description: `\`fast\`: ${FAST_PORTS.length} TCP ports; \`deep\`: ${DEEP_PORTS.length} TCP ports; \`udp\` (since 1.3): ${UDP_PORTS.length} UDP services that reflect attacks or leak, each sent a harmless request of its protocol.`,
});
export type ScanType = z.output<typeof ScanType>;

/** Every scan type, in the order the interface lists them. */
export const SCAN_TYPES: readonly ScanType[] = ScanType.options;

/** What one scan type scans, and in how many chunks its progress is counted. */
export interface ScanTypeProfile {
  ports: readonly number[];
  /** Ports per chunk: deep has 64 chunks of 1024, fast 4 of 8, udp 1 of 20 (its sweep settles the ports together). */
  chunkSize: number;
  totalChunks: number;
}

/** A scan type's profile: its chunk count follows from its ports and chunk size. */
function profile(ports: readonly number[], chunkSize: number): ScanTypeProfile {
  return { ports, chunkSize, totalChunks: Math.ceil(ports.length / chunkSize) };
}

/** The profile of each scan type. */
export const SCAN_PROFILES: Readonly<Record<ScanType, ScanTypeProfile>> = {
  fast: profile(FAST_PORTS, 8),
  deep: profile(DEEP_PORTS, 1024),
  udp: profile(UDP_PORTS, UDP_PORTS.length),
};
