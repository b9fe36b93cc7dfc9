// The durability of what a caller is told was done: replication to the
// Sentinels' replicas is asynchronous, so a primary killed right after a
// write may be replaced by a replica that never got it. A write a caller
// relies on (a scan start's record and chunk jobs, a webhook's
// registration) is secured in one of two ways (redisWait.mode):
// - `wait`: the caller is answered once `replicas` replicas hold it, or
//   `timeoutMs` passed;
// - `replay` (the default): the caller is answered at once and this node
//   holds the write until the replicas have it: rounds (at most one per
//   ROUND_SPACING_MS) follow each other until one covers it, for up to
//   HOLD_MS. One that ran on another primary
//   than the round before it (a failover) is followed by writing each held
//   write again there (each replay is idempotent). A caller waits for
//   nothing; a start is lost only if this node dies in the same moments as
//   the primary.
//
// WAIT covers the writes its own connection sent before it, and a replica
// applies the primary's writes in the order the primary ran them. So on a
// connection of its own a round writes a marker key, then WAITs: once the
// replicas hold the marker they hold every write the primary ran before it,
// whichever connection sent it. One round covers every write that had
// completed when it began (a group commit). A primary with no replica (a
// lone one) is not waited on: WAIT would only sit out its timeout.
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';

import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { Config } from '../config/config.js';
import type { Metrics } from '../metrics/metrics.js';
import { REPLICA_WAIT_MARKER_KEY } from './redis-keys.js';

/** replay: how long a write is held (and written again) before it is given up on, logged. */
const HOLD_MS = 60_000;
/** replay: the pause after a round or a replay that found no primary. */
const RETRY_MS = 250;
/**
 * replay: rounds begin at most this often. Nobody waits on them, and a
 * primary with a client in WAIT asks every replica for an acknowledgement
 * each time it goes idle: one round per start under a burst costs both
 * CPU. A held write waits this much longer for its round, in this node's
 * memory.
 */
const ROUND_SPACING_MS = 100;

/** Writes it again on a primary that may have lost it; says what it found (e.g. `kept`, `restored`). */
export type Replay = () => Promise<string>;

/** How a round ended: its replicas hold everything before it; they did not within timeoutMs; it ran on another primary than the round before it (writes made before may have been on the one that is gone). */
type RoundEnd = 'covered' | 'lagging' | 'moved';

interface HeldWrite {
  what: string;
  replay: Replay;
  since: number;
}

export class ReplicaWait {
  /** The primary the last round ran on (INFO replication's master_replid: a promoted replica takes a new one). */
  private primary: string | undefined;
  /** The round under way, and the one that starts when it ends (for callers that came after it began). */
  private current: Promise<RoundEnd> | undefined;
  private next: Promise<RoundEnd> | undefined;
  /** replay: writes answered and not yet on the replicas. */
  private held: HeldWrite[] = [];
  private draining = false;
  private lastRoundAt = Number.NEGATIVE_INFINITY;

  /** `connection`: this wait's own (its WAITs hold up nothing else); one that fails fast while no primary answers, so a start then is refused, not acknowledged unreplicated. */
  private constructor(
    private readonly connection: Redis,
    private readonly settings: Config['redisWait'],
    private readonly metrics: Pick<Metrics, 'redisReplay' | 'redisUnreplicatedWrite'>,
    private readonly logger: Logger,
  ) {}

  /** A wait that knows the primary the node started on (a failover before the first round is one too). */
  static async open(
    connection: Redis,
    settings: Config['redisWait'],
    metrics: Pick<Metrics, 'redisReplay' | 'redisUnreplicatedWrite'>,
    logger: Logger,
  ): Promise<ReplicaWait> {
    const wait = new ReplicaWait(connection, settings, metrics, logger);
    if (settings.replicas > 0) wait.primary = replicationOf(await connection.info('replication')).replid;
    return wait;
  }

  /** Secures `what`, written just before this call: waits for the replicas (`wait`), or holds it and returns at once (`replay`). */
  async secure(what: string, replay: Replay): Promise<void> {
    if (this.settings.replicas === 0) return;
    if (this.settings.mode === 'wait') return this.waitFor(what, replay);
    this.held.push({ what, replay, since: Date.now() });
    if (!this.draining) void this.drain();
  }

  /** wait: a round; after a failover, the write written again and one more round. */
  private async waitFor(what: string, replay: Replay): Promise<void> {
    let end = await this.round();
    if (end === 'moved') {
      this.metrics.redisReplay(await replay());
      end = await this.round();
    }
    if (end !== 'covered') this.unreplicated(what, `no replica acknowledged it within ${this.settings.timeoutMs} ms; a failover now could lose it`);
  }

  /** replay: rounds over the held writes until none is left; after a failover they are written again before the next. Never throws. */
  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.held.length > 0) {
        const wait = this.lastRoundAt + ROUND_SPACING_MS - performance.now();
        if (wait > 0) await delay(wait);
        this.lastRoundAt = performance.now();
        const batch = this.held.splice(0);
        // No primary answers (the Sentinels are failing over): the round after it says whether the primary moved.
        const end = await this.round().catch(() => delay(RETRY_MS, 'lost' as const));
        if (end === 'covered') continue;
        const kept = batch.filter(
          (write) => Date.now() - write.since < HOLD_MS || this.unreplicated(write.what, `no replica acknowledged it in ${HOLD_MS / 1000} s; given up`),
        );
        if (end === 'moved') await Promise.all(kept.map((write) => this.replayUntilDone(write)));
        this.held.unshift(...kept);
      }
    } finally {
      this.draining = false;
    }
  }

  /** Writes `write` again until a primary takes it (or it is held no longer). */
  private async replayUntilDone(write: HeldWrite): Promise<void> {
    while (Date.now() - write.since < HOLD_MS) {
      try {
        const outcome = await write.replay();
        this.metrics.redisReplay(outcome);
        if (outcome !== 'kept')
          this.logger.warn({ event: 'redis_replayed', what: write.what, outcome }, `${write.what}: written again on the primary (${outcome})`);
        return;
      } catch {
        await delay(RETRY_MS); // no primary answers: the Sentinels are failing over
      }
    }
  }

  /** Logs and counts a write no replica acknowledged; false, for filters. */
  private unreplicated(what: string, why: string): false {
    this.metrics.redisUnreplicatedWrite();
    this.logger.warn({ event: 'redis_unreplicated', what, replicas: this.settings.replicas, timeoutMs: this.settings.timeoutMs }, `${what}: ${why}`);
    return false;
  }

  /** A round that begins after this call (the next one if a round is under way: it may have begun before the caller's writes ran). */
  private round(): Promise<RoundEnd> {
    if (this.next !== undefined) return this.next;
    if (this.current === undefined) {
      this.current = this.markAndWait().finally(() => {
        this.current = undefined;
      });
      return this.current;
    }
    this.next = this.current
      .catch(() => 'lagging' as const)
      .then(() => {
        this.next = undefined;
        return this.round();
      });
    return this.next;
  }

  /** Writes the marker, then WAITs for the replicas asked for (as many as the primary has connected) to hold it. */
  private async markAndWait(): Promise<RoundEnd> {
    const [info] = await Promise.all([this.connection.info('replication'), this.connection.incr(REPLICA_WAIT_MARKER_KEY)]);
    const { replid, replicas } = replicationOf(info);
    const moved = replid !== this.primary;
    this.primary = replid;
    if (moved) return 'moved';
    const wanted = Math.min(this.settings.replicas, replicas);
    if (wanted === 0) return 'covered';
    const acked = (await this.connection.call('WAIT', wanted, this.settings.timeoutMs)) as number;
    return acked >= wanted ? 'covered' : 'lagging';
  }
}

/** The primary's replication id and its connected replicas, from INFO replication. */
function replicationOf(info: string): { replid: string | undefined; replicas: number } {
  return { replid: /^master_replid:(\w+)/m.exec(info)?.[1], replicas: Number(/^connected_slaves:(\d+)/m.exec(info)?.[1] ?? 0) };
}
