import { describe, expect, it } from 'vitest';

import { SilenceJudge } from '../../src/udp/silence-judge.js';

const options = { confirmRounds: 2, noIcmpMs: 3_000, quietMs: 3_000 };

describe('SilenceJudge', () => {
  it('settles after two rounds in a row in which the canary drew an ICMP, even when silent ports drew some before it', () => {
    const judge = new SilenceJudge(0, options);
    expect(judge.endRound({ at: 50, pendingRefused: 3, canaryRefused: true })).toBe(false);
    expect(judge.endRound({ at: 100, pendingRefused: 0, canaryRefused: true })).toBe(true);
  });

  it('starts counting again when a silent port draws an ICMP between canary rounds', () => {
    const judge = new SilenceJudge(0, options);
    expect(judge.endRound({ at: 50, pendingRefused: 0, canaryRefused: true })).toBe(false);
    expect(judge.endRound({ at: 1_050, pendingRefused: 1, canaryRefused: false })).toBe(false);
    expect(judge.endRound({ at: 2_050, pendingRefused: 0, canaryRefused: true })).toBe(false);
    expect(judge.endRound({ at: 3_050, pendingRefused: 0, canaryRefused: true })).toBe(true);
  });

  it('does not count rounds in which the target had no ICMP to send (the rate limit)', () => {
    const judge = new SilenceJudge(0, options);
    expect(judge.endRound({ at: 50, pendingRefused: 6, canaryRefused: false })).toBe(false);
    for (let at = 100; at < 1_000; at += 50) expect(judge.endRound({ at, pendingRefused: 0, canaryRefused: false })).toBe(false);
    expect(judge.endRound({ at: 1_050, pendingRefused: 0, canaryRefused: true })).toBe(false);
  });

  it('settles a target that never sends any ICMP after noIcmpMs', () => {
    const judge = new SilenceJudge(0, options);
    expect(judge.endRound({ at: 2_999, pendingRefused: 0, canaryRefused: false })).toBe(false);
    expect(judge.endRound({ at: 3_000, pendingRefused: 0, canaryRefused: false })).toBe(true);
  });

  it('waits out three times the longest gap between ICMPs when that is longer than quietMs', () => {
    const judge = new SilenceJudge(0, options);
    judge.endRound({ at: 100, pendingRefused: 6, canaryRefused: false });
    judge.endRound({ at: 2_100, pendingRefused: 1, canaryRefused: false });
    expect(judge.endRound({ at: 2_100 + 5_999, pendingRefused: 0, canaryRefused: false })).toBe(false);
    expect(judge.endRound({ at: 2_100 + 6_000, pendingRefused: 0, canaryRefused: false })).toBe(true);
  });
});
