// Starting a scan through every abuse control, for every interface (v1,
// v2, MCP): target policy and opt-out first, then coalescing, then the scan
// limits, charged only when a new scan really starts.
import type { ScanManager, StartResult } from '../scan/scan-manager.js';
import type { ScanOrigin } from '../scan/scan-record.js';
import type { ScanType } from '../api/scan-type.js';
import type { ScanListener } from '../scan/stream-event.js';
import type { Admission } from './admission.js';

export function guardedStart(
  admission: Admission,
  manager: ScanManager,
  ip: string,
  scanType: ScanType,
  origin: ScanOrigin,
  listener?: ScanListener,
): Promise<StartResult> {
  admission.checkTarget(ip, scanType, origin);
  return manager.start(ip, scanType, origin, listener, () => admission.chargeScan(ip, scanType, origin));
}
