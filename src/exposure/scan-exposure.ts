// What a finished scan says about exposure as a whole: the highest
// severity of its open ports, and what changed since the last scan of the
// address and type. Run by the finisher, in one process or on any node of
// a cluster, just before the scan's end is stored.
import type { Logger } from 'pino';

import { highestSeverity } from '../api/severity-levels.js';
import type { ScanRecord } from '../model/scan-record.js';
import { changesSince, type Fingerprint, fingerprintOf } from './fingerprint.js';
import type { FingerprintStore } from './fingerprint-store.js';
import { assessPort } from './severity-table.js';

export interface ScanExposureOptions {
  /** Facts are on: every open port has a risk, and a scan its highest severity. */
  assess: boolean;
  /** Where fingerprints are kept, and for how long; absent: changes are not tracked. */
  fingerprints?: { store: FingerprintStore; keepMs: number };
  logger: Logger;
}

export class ScanExposure {
  constructor(private readonly options: ScanExposureOptions) {}

  /**
   * Sets the severity and changes of `record`, a finished scan; returns the
   * fingerprint to keep once its end is stored (null: none is kept).
   */
  async assess(record: ScanRecord): Promise<Fingerprint | null> {
    const { assess, fingerprints, logger } = this.options;
    if (assess) {
      // A port whose facts stage did not run (a chunk saved by an older version) is rated on what is known.
      for (const port of record.portsOpen) port.risk ??= assessPort(port);
      for (const vantage of record.vantages ?? []) for (const port of vantage.portsOpen) port.risk ??= assessPort(port);
      record.severity = highestSeverity(record.portsOpen.map((port) => port.risk!.severity));
    }
    if (fingerprints === undefined) return null;
    const fingerprint = fingerprintOf(record.completedAt!, record.portsOpen);
    try {
      const before = await fingerprints.store.get(record.ip, record.scanType);
      record.changes = before === null ? null : changesSince(before, fingerprint, record.status === 'complete');
    } catch (error) {
      logger.warn({ err: error, scanId: record.id }, 'could not read the last fingerprint: no changes reported');
      record.changes = null;
    }
    return record.status === 'complete' ? fingerprint : null;
  }

  /** Keeps `fingerprint` of `record` for the retention set; a failure is logged, not thrown. */
  async remember(record: ScanRecord, fingerprint: Fingerprint): Promise<void> {
    const { fingerprints, logger } = this.options;
    if (fingerprints === undefined) return;
    await fingerprints.store
      .put(record.ip, record.scanType, fingerprint, fingerprint.completedAt + fingerprints.keepMs)
      .catch((error: unknown) => logger.warn({ err: error, scanId: record.id }, 'could not keep the fingerprint'));
  }
}
