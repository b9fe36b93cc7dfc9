// The two scan types of the interface and the facts about each that clients
// need (which ports, how many chunks): one place, shared by the scanner
// side and every wire shape that names a scan type.
import * as z from 'zod';

/** The fast scan's 32 ports (port 25 included), in the order probed. */
export const FAST_PORTS: readonly number[] = Object.freeze([
  21, 22, 23, 25, 53, 80, 110, 111, 135, 139, 143, 443, 445, 465, 587, 993, 995, 1433, 1521, 2049, 2375, 3306, 3389, 5432, 5900, 6379, 8000, 8080, 8443, 9200,
  11211, 27017,
]);

/** Every TCP port, 1 to 65535. */
export const DEEP_PORTS: readonly number[] = Object.freeze(Array.from({ length: 65535 }, (_, i) => i + 1));

/** `fast` or `deep`. */
export const ScanType = z.enum(['fast', 'deep']).meta({ description: `\`fast\`: ${FAST_PORTS.length} ports; \`deep\`: ${DEEP_PORTS.length} ports.` });
export type ScanType = z.output<typeof ScanType>;

/** Every scan type, in the order the interface lists them. */
export const SCAN_TYPES: readonly ScanType[] = ScanType.options;

/** What one scan type scans, and in how many chunks its progress is counted. */
export interface ScanTypeProfile {
  ports: readonly number[];
  /** Ports per chunk: deep has 64 chunks of 1024, fast 4 of 8. */
  chunkSize: number;
  totalChunks: number;
}

/** The profile of each scan type. */
export const SCAN_PROFILES: Readonly<Record<ScanType, ScanTypeProfile>> = {
  fast: { ports: FAST_PORTS, chunkSize: 8, totalChunks: 4 },
  deep: { ports: DEEP_PORTS, chunkSize: 1024, totalChunks: 64 },
};
