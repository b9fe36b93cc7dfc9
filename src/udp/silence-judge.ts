// When may a UDP port that stays silent be called filtered? A closed port
// answers with an ICMP port unreachable, but the target's kernel rate-limits
// those per destination (Linux: a burst of 6, then one per
// `icmp_ratelimit`, 1 s by default for IPv4): a closed port can be silent
// only because the target had no ICMP left to send. So each round the sweep
// probes the silent ports and then, right behind them, a canary: a port
// known (or guessed) to be closed. When the canary's ICMP comes back, the
// target had one to send when the silent ports' datagrams reached it just
// before, and any of them that is closed drew one: those that did not are
// not closed. Two such rounds in a row (one could be a datagram lost on the
// way) settle the ports still silent as filtered; a silent port drawing an
// ICMP in a round whose canary did not proves the count wrong, and it
// starts again. Fallbacks: a target that never sends any ICMP settles
// after `noIcmpMs`; one whose canary stops answering, after a quiet spell.

export interface SilenceJudgeOptions {
  /** Rounds in a row in which the canary drew an ICMP (a silent port drawing one in between resets the count). */
  confirmRounds: number;
  /** A target that has sent no ICMP at all since the sweep began settles after this. */
  noIcmpMs: number;
  /** A target that sent ICMP but then none for this long (or 3× its longest gap so far) settles. */
  quietMs: number;
}

export const DEFAULT_SILENCE_JUDGE: SilenceJudgeOptions = { confirmRounds: 2, noIcmpMs: 3_000, quietMs: 3_000 };

/** What one round saw, from its start to its end. */
export interface RoundSeen {
  /** When the round ended (ms, any clock the sweep's start shares). */
  at: number;
  /** Silent ports whose datagram drew an ICMP port unreachable in this round. */
  pendingRefused: number;
  /** The canary's datagram drew one. */
  canaryRefused: boolean;
}

export class SilenceJudge {
  private provenQuiet = 0;
  private lastIcmpAt: number | null = null;
  private longestGap = 0;

  constructor(
    private readonly startedAt: number,
    private readonly options: SilenceJudgeOptions = DEFAULT_SILENCE_JUDGE,
  ) {}

  /** Whether the ports still silent after this round may now be called filtered. */
  endRound(round: RoundSeen): boolean {
    const icmp = round.pendingRefused > 0 || round.canaryRefused;
    if (icmp) {
      if (this.lastIcmpAt !== null) this.longestGap = Math.max(this.longestGap, round.at - this.lastIcmpAt);
      this.lastIcmpAt = round.at;
    }
    if (round.canaryRefused) this.provenQuiet++;
    else if (round.pendingRefused > 0) this.provenQuiet = 0;
    if (this.provenQuiet >= this.options.confirmRounds) return true;
    if (this.lastIcmpAt === null) return round.at - this.startedAt >= this.options.noIcmpMs;
    return round.at - this.lastIcmpAt >= Math.max(this.options.quietMs, 3 * this.longestGap);
  }
}
