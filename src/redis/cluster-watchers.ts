// The scans this API node streams to watchers (SSE, MCP progress): one
// subscription to the events channel for the node, and per watched scan its
// state rebuilt from a snapshot plus the events newer than it. A watcher is
// registered before the snapshot is read, so an event is either in the
// snapshot or delivered after it; the sequence number tells which.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { ScanType } from '../api/scan-type.js';
import type { ScanRecord } from '../model/scan-record.js';
import { finalBody } from '../scan/result-view.js';
import type { FirstEvents } from '../scan/scan-book.js';
import { type ScanListener, type StreamEvent, sendToListeners } from '../scan/scan-events.js';
import type { Watch } from '../scan/scans.js';
import { progressEvent, terminalEvent } from '../scan/stream-events.js';
import { EVENTS_CHANNEL } from './redis-keys.js';
import { applyChunks, type RedisScanProgress } from './redis-scan-progress.js';
import { parseScanEventMessage, type ScanEventMessage } from './scan-event-message.js';

/** After a reconnect, a scan's state that could not be read is read again this much later. */
const RESYNC_RETRY_MS = 500;

interface WatchedScan {
  ip: string;
  scanType: ScanType;
  regionsAsked?: string;
  /** Null until the snapshot is read. */
  record: ScanRecord | null;
  seq: number;
  listeners: Set<ScanListener>;
  /** Events that came while the snapshot was being read. */
  early: ScanEventMessage[];
  loaded: Promise<boolean>;
}

export class ClusterWatchers {
  private readonly watched = new Map<string, WatchedScan>();

  private constructor(
    private readonly subscriber: Redis,
    private readonly progress: RedisScanProgress,
    private readonly log: Logger,
  ) {}

  /** Subscribes `subscriber` (a connection of its own) to the events channel. */
  static async open(subscriber: Redis, progress: RedisScanProgress, logger: Logger): Promise<ClusterWatchers> {
    const watchers = new ClusterWatchers(subscriber, progress, logger);
    subscriber.on('message', (_channel: string, text: string) => watchers.deliver(text));
    // Events published while the connection was down are lost: read the state again.
    let connectedBefore = false;
    subscriber.on('ready', () => {
      if (connectedBefore) watchers.resync();
      connectedBefore = true;
    });
    await subscriber.subscribe(EVENTS_CHANNEL);
    return watchers;
  }

  /** Watched scans (for /healthz). */
  get size(): number {
    return this.watched.size;
  }

  /**
   * Attaches `listener` to scan `scanId` of (ip, scanType); null when the
   * scan has ended or is unknown. `first` picks the events it gets first;
   * each carries the number of the scan's last event, so a resume after it
   * misses nothing.
   */
  async watch(scanId: string, ip: string, scanType: ScanType, listener: ScanListener, first: FirstEvents, regionsAsked?: string): Promise<Watch | null> {
    let scan = this.watched.get(scanId);
    if (scan === undefined) {
      const created: WatchedScan = { ip, scanType, regionsAsked, record: null, seq: 0, listeners: new Set(), early: [], loaded: Promise.resolve(false) };
      created.loaded = this.load(scanId, created);
      this.watched.set(scanId, (scan = created));
    }
    // Registered before the await, so no event can fall between snapshot and
    // listener; but what it hears before its first events are made (events
    // that came while the snapshot was read, applied once it is) is in those
    // first events already, so it is dropped there, never sent twice.
    let firstSeq: number | undefined;
    const gated: ScanListener = (event) => {
      if (firstSeq !== undefined && event.id > firstSeq) listener(event);
    };
    scan.listeners.add(gated);
    const unsubscribe = (): void => {
      scan.listeners.delete(gated);
      if (scan.listeners.size === 0 && this.watched.get(scanId) === scan) this.watched.delete(scanId);
    };
    if (!(await scan.loaded) || scan.record === null) {
      unsubscribe();
      return null;
    }
    firstSeq = scan.seq;
    const { seq } = scan;
    return { initial: first(scan.record, seq).map(({ name, data }) => ({ name, id: seq, data, terminal: false })), unsubscribe };
  }

  /** Closes the subscription (its connection stays the caller's). */
  async close(): Promise<void> {
    this.watched.clear();
    await this.subscriber.unsubscribe(EVENTS_CHANNEL).catch(() => {});
  }

  private async load(scanId: string, scan: WatchedScan): Promise<boolean> {
    const snapshot = await this.progress.snapshot(scanId, scan.ip, scan.scanType, scan.regionsAsked);
    if (snapshot === null || snapshot.ended) {
      if (this.watched.get(scanId) === scan) this.watched.delete(scanId);
      return false;
    }
    scan.record = snapshot.record;
    scan.seq = snapshot.seq;
    for (const message of scan.early.splice(0)) this.apply(scanId, scan, message);
    return true;
  }

  private deliver(text: string): void {
    if (this.watched.size === 0) return; // every scan's events reach every API node: most concern nobody here
    let message: ScanEventMessage;
    try {
      message = parseScanEventMessage(text);
    } catch (error) {
      return this.log.error({ err: error }, 'unreadable scan event');
    }
    const scan = this.watched.get(message.scanId);
    if (scan === undefined) return;
    if (scan.record === null) scan.early.push(message);
    else this.apply(message.scanId, scan, message);
  }

  private apply(scanId: string, scan: WatchedScan, message: ScanEventMessage): void {
    const record = scan.record!;
    if (message.seq <= scan.seq) return; // in the snapshot already
    scan.seq = message.seq;
    let event: StreamEvent;
    if (message.kind === 'end') {
      this.watched.delete(scanId);
      event = terminalEvent(message.body, message.seq);
    } else if (message.kind === 'running') {
      record.status = 'running';
      record.startedAt = message.startedAt;
      event = progressEvent(record, message.seq);
    } else {
      applyChunks(record, [[message.index, message.chunk]]);
      event = progressEvent(record, message.seq, message.chunk.complete ? message.index : undefined);
    }
    this.send(scanId, scan, event);
  }

  private send(scanId: string, scan: WatchedScan, event: StreamEvent): void {
    sendToListeners(scan.listeners, event, scanId, this.log);
  }

  /** After a reconnect: each watched scan's state read anew, its newer state sent as one event. */
  private resync(): void {
    for (const [scanId, scan] of this.watched) if (scan.record !== null) this.resyncScan(scanId, scan);
  }

  /** Reads one scan's state again; while Redis still fails (our command connection may come back after the subscriber), tries again. */
  private resyncScan(scanId: string, scan: WatchedScan): void {
    this.progress.snapshot(scanId, scan.ip, scan.scanType, scan.regionsAsked).then(
      (snapshot) => {
        if (snapshot === null || snapshot.seq <= scan.seq || this.watched.get(scanId) !== scan) return;
        scan.record = snapshot.record;
        scan.seq = snapshot.seq;
        if (!snapshot.ended) return this.send(scanId, scan, progressEvent(snapshot.record, snapshot.seq));
        this.watched.delete(scanId);
        this.send(scanId, scan, terminalEvent(finalBody(snapshot.record), snapshot.seq));
      },
      (error: unknown) => {
        this.log.warn({ err: error, scanId }, 'could not read scan state after reconnecting; trying again');
        setTimeout(() => {
          if (this.watched.get(scanId) === scan) this.resyncScan(scanId, scan);
        }, RESYNC_RETRY_MS).unref();
      },
    );
  }
}
