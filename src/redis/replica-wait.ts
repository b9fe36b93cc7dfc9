// The durability of what a caller is told was done: replication to the
// Sentinels' replicas is asynchronous, so a primary killed right after a
// write may be replaced by a replica that never got it. After a write a
// caller relies on (a scan start's record and chunk jobs, a webhook's
// registration) we wait until `replicas` replicas hold it, or `timeoutMs`
// passed.
//
// WAIT covers the writes its own connection sent before it, and a replica
// applies the primary's writes in the order the primary ran them. So on a
// connection of its own a round writes a marker key, then WAITs: once the
// replicas hold the marker they hold every write the primary ran before it,
// whichever connection sent it. One round covers every caller whose writes
// had completed when it began (a group commit): under a burst of starts a
// handful of rounds replace one WAIT each, and no other command waits
// behind a WAIT on a shared connection. A primary with no replica (a lone
// one) is not waited on: WAIT would only sit out its timeout.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import { REPLICA_WAIT_MARKER_KEY } from './redis-keys.js';

/** How long the primary's replica count is believed before INFO is asked again. */
const REPLICAS_FRESH_MS = 1000;

export class ReplicaWait {
  private known = { replicas: 0, at: Number.NEGATIVE_INFINITY };
  /** The round under way, and the one that starts when it ends (for callers that came after it began). */
  private current: Promise<number> | undefined;
  private next: Promise<number> | undefined;

  /** `connection`: this wait's own (its WAITs hold up nothing else); one that fails fast while no primary answers, so a start then is refused, not acknowledged unreplicated. */
  constructor(
    private readonly connection: Redis,
    private readonly settings: Config['redisWait'],
    private readonly logger: Logger,
  ) {}

  /** Resolves once every write that completed before this call is on the replicas asked for (or the wait timed out, which is logged). */
  async after(what: string): Promise<void> {
    if (this.settings.replicas === 0) return;
    const replicas = Math.min(this.settings.replicas, await this.replicas());
    if (replicas === 0) return;
    const acked = await this.round(replicas);
    if (acked < replicas) {
      this.logger.warn(
        { event: 'redis_unreplicated', what, replicas, acked, timeoutMs: this.settings.timeoutMs },
        `${what}: ${acked} of ${replicas} replicas acknowledged within ${this.settings.timeoutMs} ms; a failover now could lose it`,
      );
    }
  }

  /** A round that begins after this call: the next one if a round is under way (it may have begun before the caller's writes ran). */
  private round(replicas: number): Promise<number> {
    if (this.next !== undefined) return this.next;
    if (this.current === undefined) {
      this.current = this.markAndWait(replicas).finally(() => {
        this.current = undefined;
      });
      return this.current;
    }
    this.next = this.current
      .catch(() => 0)
      .then(() => {
        this.next = undefined;
        return this.round(replicas);
      });
    return this.next;
  }

  /** Writes the marker, then WAITs for `replicas` replicas to hold it; how many did. */
  private async markAndWait(replicas: number): Promise<number> {
    await this.connection.incr(REPLICA_WAIT_MARKER_KEY);
    return (await this.connection.call('WAIT', replicas, this.settings.timeoutMs)) as number;
  }

  /** Replicas connected to the primary (INFO replication's connected_slaves), asked at most once a REPLICAS_FRESH_MS. */
  private async replicas(): Promise<number> {
    if (Date.now() - this.known.at < REPLICAS_FRESH_MS) return this.known.replicas;
    const info = await this.connection.info('replication');
    const replicas = Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0);
    this.known = { replicas, at: Date.now() };
    return replicas;
  }
}
