// The fields several scan shapes share (POST answer, results, stream
// events, tool results), each described once.
import * as z from 'zod';

import { IpAddress } from './ip-address.js';
import { Port } from './port.js';
import { SCAN_PROFILES, ScanType } from './scan-type.js';

/** A count: an integer, 0 or more. */
export const count = (description: string) => z.int().min(0).meta({ description });

/** The status of a scan not yet over. */
export const inFlightStatus = z.enum(['queued', 'running']).meta({ description: '`queued` while waiting for the scanner, `running` once it has started.' });

/** Chunks of the port list finished so far. */
export const chunksComplete = count('Chunks of the port list finished so far.');

/** Chunks in the whole scan. */
export const totalChunks = z
  .int()
  .min(1)
  .meta({
    description: `Chunks in the whole scan (fast: ${SCAN_PROFILES.fast.totalChunks}, deep: ${SCAN_PROFILES.deep.totalChunks}).`,
  });

/** Indicative seconds until results. */
export const etaSeconds = count('Indicative seconds until results: a hint for the polling interval and a rough lower bound, not a guarantee.');

/** Scans ahead of this one. */
export const queuePosition = count('Number of scans ahead of this one; 0 once running.');

/** A list of ports. */
export const portList = (description: string) => z.array(Port).meta({ description });

/** The scan every shape names: whose address, which type. */
export const scanIdentity = { ip: IpAddress, scan_type: ScanType };

/** Where it ran: a cluster's scanning region; absent from a single process. */
export const scanRegion = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,32}$/)
  .optional()
  .meta({ description: 'The region whose scanner nodes ran the scan (cluster deployments only; absent from a single process).' });
