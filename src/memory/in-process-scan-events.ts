// The scan event bus of a single process: listeners in memory, events built
// only for scans someone watches.
import type { Logger } from 'pino';

import {
  type EndedScan,
  type InitialEvent,
  type ScanEvents,
  type ScanListener,
  type StreamEvent,
  type StreamEventName,
  type Subscription,
  sendToListeners,
} from '../scan/scan-events.js';
import { terminalName } from '../scan/stream-events.js';

interface Watched {
  listeners: Set<ScanListener>;
  nextId: number;
}

export class InProcessScanEvents implements ScanEvents {
  private readonly watched = new Map<string, Watched>();
  private readonly endedListeners: ((scan: EndedScan) => void)[] = [];

  constructor(private readonly log: Logger) {}

  progress(scanId: string, data: () => object): void {
    const scan = this.watched.get(scanId);
    if (scan !== undefined && scan.listeners.size > 0) this.send(scanId, scan, this.stamp(scan, 'scan:progress', data()));
  }

  ended(ended: EndedScan): void {
    for (const listener of this.endedListeners) listener(ended);
    const scanId = ended.record.id;
    const scan = this.watched.get(scanId);
    if (scan === undefined) return;
    this.watched.delete(scanId);
    this.send(scanId, scan, this.stamp(scan, terminalName(ended.body), ended.body));
  }

  subscribe(scanId: string, listener: ScanListener, initial: (nextId: number) => readonly InitialEvent[]): Subscription {
    let scan = this.watched.get(scanId);
    if (scan === undefined) this.watched.set(scanId, (scan = { listeners: new Set(), nextId: 1 }));
    const stamped = initial(scan.nextId).map(({ name, data }) => this.stamp(scan, name, data));
    scan.listeners.add(listener);
    return {
      initial: stamped,
      unsubscribe: () => {
        scan.listeners.delete(listener);
      },
    };
  }

  onEnded(listener: (scan: EndedScan) => void): void {
    this.endedListeners.push(listener);
  }

  private stamp(scan: Watched, name: StreamEventName, data: object): StreamEvent {
    return { name, id: scan.nextId++, data, terminal: name === 'scan:complete' || name === 'scan:failed' };
  }

  private send(scanId: string, scan: Watched, event: StreamEvent): void {
    sendToListeners(scan.listeners, event, scanId, this.log);
  }
}
