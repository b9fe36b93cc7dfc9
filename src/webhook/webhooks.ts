// What the routes ask of webhooks, whoever delivers them: the embedded
// WebhookService or a cluster's queue (cluster/cluster-webhooks.ts).
import type { ScanType } from '../api/scan-type.js';
import type { WebhookKey } from '../api/webhook-key.js';

export interface Webhooks {
  /** The key that signs deliveries: its public document. */
  readonly key: { readonly publicDocument: WebhookKey };
  /** Owes `url` a notification when scan `scanId` ends. Durable when it resolves. */
  register(scanId: string, ip: string, scanType: ScanType, url: string): Promise<void>;
}
