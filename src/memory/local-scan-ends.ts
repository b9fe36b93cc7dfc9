// How a scan ends in one process: its final record is written to the store
// (in order after its earlier writes; a failure is logged, and watchers
// still hear the end), then announced on the in-process bus. Only this
// process runs its scans, so each ends once.
import type { Logger } from 'pino';

import type { ScanResultFinal } from '../api/scan-result.js';
import type { ScanRecord } from '../model/scan-record.js';
import type { RecordWriter } from '../scan/record-writer.js';
import type { ScanEvents } from '../scan/scan-events.js';
import type { ScanEnds } from '../scan/scan-finisher.js';

export class LocalScanEnds implements ScanEnds {
  constructor(
    private readonly writer: RecordWriter,
    private readonly events: ScanEvents,
    private readonly logger: Logger,
  ) {}

  async end(record: ScanRecord, body: ScanResultFinal): Promise<boolean> {
    try {
      await this.writer.write(record);
    } catch (error) {
      this.logger.error({ err: error, scanId: record.id }, 'could not store scan result');
    }
    this.events.ended({ record, body });
    return true;
  }
}
