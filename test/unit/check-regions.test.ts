// `selfscan check --regions` and `--expect-same-everywhere` as pure logic:
// the flags and policy keys made into a plan (every mistake a usage error
// before anything is sent), and the sameness check against multi-region
// results as a cluster answers them.
import { describe, expect, it } from 'vitest';

import { outcomeOf } from '../../src/client/check-outcome.js';
import { plan, policyFiles, usageError } from '../helpers/check-plans.js';
import { DIFFERING, FROM_ONE_PLACE, SAME_EVERYWHERE } from './region-bodies.js';

const policy = policyFiles('selfscan-check-regions-');

describe('--regions and --expect-same-everywhere as a plan', () => {
  it('keeps regions as the server keys them: all, or the names sorted without repeats', () => {
    expect(plan('--regions', 'all').regions).toBe('all');
    expect(plan('--regions', 'NL,FR,NL').regions).toBe('FR,NL');
    expect(plan().regions).toBeUndefined();
    expect(plan('--regions', 'all', '--expect-same-everywhere').sameEverywhere).toEqual({ from: 'flag' });
    expect(plan('--regions', 'all').sameEverywhere).toBeUndefined();
  });

  it('refuses a malformed --regions before anything is sent', () => {
    expect(usageError('--regions', '')).toMatch(/^--regions: regions must be `all` or region names/);
    expect(usageError('--regions', 'NL;FR')).toContain('got "NL;FR"');
    expect(usageError('--regions', 'NL,,FR')).toContain('--regions: ');
    expect(usageError('--regions', Array.from({ length: 33 }, (_, i) => `R${i}`).join(','))).toBe('--regions: regions names at most 32 regions');
  });

  it('refuses --expect-same-everywhere without several regions to compare', () => {
    expect(usageError('--expect-same-everywhere')).toBe('--expect-same-everywhere compares what several regions see: pass --regions all or --regions NL,FR');
    expect(usageError('--regions', 'NL', '--expect-same-everywhere')).toContain('--regions NL names one');
    expect(usageError('--regions', 'NL,NL', '--expect-same-everywhere')).toContain('--regions NL names one');
  });

  it('reads regions (a string or an array) and expect_same_everywhere from a policy; the flag replaces its regions', () => {
    const fromPolicy = plan('--policy', policy({ regions: ['UK', 'NL'], expect_same_everywhere: true }));
    expect(fromPolicy.regions).toBe('NL,UK');
    expect(fromPolicy.sameEverywhere).toEqual({ from: 'policy' });
    expect(fromPolicy.policy?.lines.expect_same_everywhere).toBe(6);
    expect(plan('--policy', policy({ regions: 'NL,UK' }), '--regions', 'all').regions).toBe('all');
    expect(plan('--policy', policy({ regions: 'all', expect_same_everywhere: false })).sameEverywhere).toBeUndefined();
    expect(usageError('--policy', policy({ expect_same_everywhere: true }))).toContain('pass --regions all or --regions NL,FR');
    expect(usageError('--policy', policy({ regions: 'NL FR' }))).toMatch(/^policy: regions must be `all` or region names/);
    expect(usageError('--policy', policy({ regions: 7 }))).toBe('policy: regions must be "all", names like "NL,FR", or an array of names');
    expect(usageError('--policy', policy({ regions: 'all', expect_same_everywhere: 'yes' }))).toBe('policy: expect_same_everywhere must be a boolean');
  });
});

describe('the sameness check', () => {
  const startedAt = new Date('2026-11-26T13:00:00Z');

  it('passes when every region finished and saw the same ports, beside the checks of the union', () => {
    const outcome = outcomeOf(plan('--regions', 'all', '--expect-same-everywhere', '--expect-open', '22,443'), SAME_EVERYWHERE, null, startedAt);
    expect(outcome.checks.map(({ rule, outcome, message }) => [rule, outcome, message])).toEqual([
      ['expect-open', 'pass', 'port 22 is open'],
      ['expect-open', 'pass', 'port 443 is open'],
      ['same-everywhere', 'pass', 'every region (FR, NL) sees the same ports'],
    ]);
    expect(outcome.verdict).toBe('pass');
    expect(outcome.exitCode).toBe(0);
  });

  it('fails on each port seen differently, naming the regions on each side, and on each region that did not finish', () => {
    const outcome = outcomeOf(plan('--regions', 'all', '--expect-same-everywhere'), DIFFERING, null, startedAt);
    expect(outcome.checks).toEqual([
      {
        rule: 'same-everywhere',
        port: 3306,
        state: 'open',
        from: 'flag',
        outcome: 'fail',
        message: 'port 3306: open from UK; closed from FR, NL; not verified from SE',
      },
      {
        rule: 'same-everywhere',
        port: 8080,
        state: 'open',
        from: 'flag',
        outcome: 'fail',
        message: 'port 8080: open from NL, UK; filtered from FR; not verified from SE',
      },
      {
        rule: 'same-everywhere',
        region: 'SE',
        state: 'unknown',
        from: 'flag',
        outcome: 'fail',
        message: 'region SE failed (interrupted): what it did not verify cannot be shown the same as elsewhere',
      },
    ]);
    expect(outcome.verdict).toBe('fail');
    expect(outcome.exitCode).toBe(1);
  });

  it('fails on a region that ended incomplete even when no port differs', () => {
    const incomplete = {
      ...SAME_EVERYWHERE,
      vantages: SAME_EVERYWHERE.vantages!.map((vantage) =>
        vantage.region === 'FR' ? { ...vantage, status: 'incomplete' as const, chunks_complete: 3 } : vantage,
      ),
    };
    const { checks, verdict } = outcomeOf(plan('--regions', 'FR,NL', '--expect-same-everywhere'), incomplete, null, startedAt);
    expect(checks.map((check) => check.message)).toEqual([
      'region FR is incomplete (3 of 4 chunks): what it did not verify cannot be shown the same as elsewhere',
    ]);
    expect(verdict).toBe('fail');
  });

  it('judges the union without --expect-same-everywhere: a port open from one region only is open', () => {
    const outcome = outcomeOf(plan('--regions', 'all', '--expect-closed', '3306,8080'), DIFFERING, null, startedAt);
    expect(outcome.checks.map((check) => check.message)).toEqual([
      'port 3306 is open, expected closed or filtered',
      'port 8080 is open, expected closed or filtered',
    ]);
    expect(outcome.exitCode).toBe(1);
  });

  it('cannot decide (exit 2) when a server ignored --regions and scanned from one place', () => {
    const outcome = outcomeOf(plan('--regions', 'all', '--expect-same-everywhere', '--expect-open', '22'), FROM_ONE_PLACE, null, startedAt);
    expect(outcome.error?.kind).toBe('unassessed');
    expect(outcome.error?.message).toBe(
      'the server scanned from one place and sent no view of each region (it predates interface 1.2): --regions all was not honoured',
    );
    expect(outcome.checks.at(-1)).toMatchObject({
      rule: 'same-everywhere',
      outcome: 'undecided',
      message: 'sameness across regions: not decided (the server sent no view of each region)',
    });
    expect(outcome.exitCode).toBe(2);
  });

  it('is undecided without a result', () => {
    const outcome = outcomeOf(plan('--regions', 'all', '--expect-same-everywhere'), null, null, startedAt);
    expect(outcome.checks).toEqual([
      { rule: 'same-everywhere', state: 'unknown', from: 'flag', outcome: 'undecided', message: 'sameness across regions: not decided (no scan result)' },
    ]);
  });
});
