// The durable outbox of webhook deliveries: an entry is written when a POST
// asks for a callback, becomes due when its scan ends, and is deleted once
// delivered or given up. Embedded (lmdb) in one process; a cluster puts a
// shared store behind the same interface.
import type { ScanType } from '../api/scan-type.js';
import type { WebhookEvent } from '../api/webhook-payload.js';

export interface Delivery {
  /** Also the X-Selfscan-Delivery header: the same on every retry. */
  id: string;
  scanId: string;
  ip: string;
  scanType: ScanType;
  url: string;
  /** waiting: its scan is in flight; due: to be sent at nextAttemptAt. */
  state: 'waiting' | 'due';
  event: WebhookEvent | null;
  /** The JSON payload, fixed when due so that every retry sends the same bytes. */
  body: string | null;
  attempts: number;
  /** Unix ms. */
  nextAttemptAt: number;
}

export interface Outbox {
  /** Every delivery owed, waiting or due. */
  all(): Delivery[];
  /** Records `delivery`; visible to queries at once, durable when the promise resolves. */
  put(delivery: Delivery): Promise<void>;
  delete(id: string): Promise<void>;
  close(): Promise<void>;
}
