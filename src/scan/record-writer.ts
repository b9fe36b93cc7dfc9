// Durable writes of scan records, in order per scan: a record's queued,
// running and final states are stored as they happen, and a later write
// never lands before an earlier one.
import type { ScanRecord } from '../model/scan-record.js';
import type { ResultStore } from './result-store.js';

export class RecordWriter {
  /** The last write of each scan with a write in flight. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly store: ResultStore) {}

  /** Stores a snapshot of `record` after its earlier writes; durable when it resolves. */
  write(record: ScanRecord): Promise<void> {
    const snapshot = structuredClone(record);
    const previous = this.pending.get(record.id) ?? Promise.resolve();
    const written = previous.catch(() => {}).then(() => this.store.put(snapshot));
    this.pending.set(record.id, written);
    const forget = (): void => {
      if (this.pending.get(record.id) === written) this.pending.delete(record.id);
    };
    written.then(forget, forget);
    return written;
  }
}
