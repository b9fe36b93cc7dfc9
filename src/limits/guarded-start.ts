// Starting a scan through every abuse control, for every interface (v1,
// v2, MCP): target policy and opt-out first, then coalescing, then the scan
// limits, charged only when a new scan really starts.
import type { ScanType } from '../api/scan-type.js';
import type { ScanOrigin } from '../model/scan-record.js';
import type { ScanListener } from '../scan/scan-events.js';
import type { ScanService, StartResult } from '../scan/scan-service.js';
import type { Admission } from './admission.js';

export function guardedStart(
  admission: Admission,
  service: ScanService,
  ip: string,
  scanType: ScanType,
  origin: ScanOrigin,
  listener?: ScanListener,
): Promise<StartResult> {
  admission.checkTarget(ip, scanType, origin);
  return service.start(ip, scanType, origin, listener, () => admission.chargeScan(ip, scanType, origin));
}
