// Where webhooks owed are kept and from where they are sent: a POST's
// registration is kept until its scan ends, then its delivery is due and
// sent (signed attempts on the retry schedule) until delivered or given up.
// One process keeps them in lmdb and sends them itself (lmdb/lmdb-outbox.ts);
// a cluster keeps registrations in Redis and sends deliveries as BullMQ jobs
// that any API node works (redis/redis-outbox.ts).
import type { ScanType } from '../api/scan-type.js';
import type { DueDelivery } from './webhook-attempt.js';

/** A POST's ask to be told when scan `scanId` of (ip, scanType) ends; `id` is also its delivery id. */
export interface Registration {
  id: string;
  scanId: string;
  ip: string;
  scanType: ScanType;
  url: string;
  /** A multi-region scan's key beside (ip, scan type). */
  regionsAsked?: string;
}

export interface Outbox {
  /**
   * Keeps `registration` until its delivery is due. Durable when it
   * resolves, or, where the store secures it later (a cluster's replay:
   * replica-wait.ts), written again if need be, `rewritten` called after:
   * the scan may have ended in between.
   */
  register(registration: Registration, rewritten?: () => Promise<void>): Promise<void>;
  /** The registrations of scan `scanId` (some may be due already: due() leaves those as they are). */
  registrations(scanId: string): Promise<Registration[]>;
  /**
   * Registrations an earlier process left waiting, to be checked against
   * the stored results at start; none where every end is redone anyway (a
   * cluster's finish jobs).
   */
  leftWaiting(): Promise<Registration[]>;
  /** Sends each delivery until delivered or given up; a delivery id made due again is not sent again. */
  due(deliveries: readonly DueDelivery[]): Promise<void>;
  /** Stops sending (an attempt under way ends first); what is owed stays for the next start. */
  close(): Promise<void>;
}
