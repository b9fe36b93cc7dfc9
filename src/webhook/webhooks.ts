// What the HTTP routes need of webhooks (webhook-service.ts, over the lmdb
// outbox of one process or the Redis outbox of a cluster).
import type { ScanType } from '../api/scan-type.js';
import type { WebhookKey } from '../api/webhook-key.js';

export interface Webhooks {
  /** The signing key; its public half is what GET /.well-known/selfscan-webhook-key answers. */
  readonly key: { readonly publicDocument: WebhookKey };
  /** Null when `url` is an acceptable X-Callback-Url (callback-url.ts, with this service's delivery policy), else why not. */
  refuseUrl(url: string): string | null;
  /** Owes `url` a notification when scan `scanId` of (ip, scanType) ends. Durable when it resolves. */
  register(scanId: string, ip: string, scanType: ScanType, url: string, regionsAsked?: string): Promise<void>;
}
