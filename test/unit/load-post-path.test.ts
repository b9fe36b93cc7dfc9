// bench:load's split of each POST at the server's handler, by flow (bench/load/load-post-path.ts):
// the harness's sample and the server's log line of the same caller's POST.
import { describe, expect, it } from 'vitest';

import type { LatencySample } from '../../bench/lib/load-metrics.js';
import { postPaths } from '../../bench/load/load-post-path.js';

/** A harness sample that started at wall-clock `sentAt` and took `ms`. */
function sample(caller: string, sentAt: number, ms: number, kind: LatencySample['kind'] = 'POST'): LatencySample {
  return { kind, caller, startedAt: sentAt - performance.timeOrigin, ms };
}

const logLine = (ip: string, answeredAt: number, ms: number, path = '/v1/fast'): Record<string, unknown> => ({
  event: 'request',
  method: 'POST',
  path,
  ip,
  time: answeredAt,
  ms,
});

describe('postPaths', () => {
  it('splits each POST into before the handler, in it, and the answer to the caller', () => {
    const t = Date.now();
    const splits = postPaths(
      [sample('127.1.0.1', t, 100), sample('127.1.0.2', t + 5, 40), sample('127.1.0.3', t, 20)],
      [logLine('127.1.0.1', t + 90, 30), logLine('127.1.0.2', t + 44, 9), logLine('127.1.0.3', t + 15, 5)],
      (caller) => (caller === '127.1.0.3' ? 'webhook' : 'v1'),
    );
    // 127.1.0.3 (webhook): sent at t, handler from t+10 to t+15, read at t+20.
    expect([...splits.keys()].sort()).toEqual(['v1', 'webhook']);
    expect(splits.get('webhook')!.beforeHandler.max).toBeCloseTo(10, 0);
    const split = splits.get('v1')!;
    // 127.1.0.1: sent at t, handler from t+60 to t+90, read at t+100.
    // 127.1.0.2: sent at t+5, handler from t+35 to t+44, read at t+45.
    expect(split.beforeHandler.count).toBe(2);
    expect(split.beforeHandler.max).toBeCloseTo(60, 0);
    expect(split.beforeHandler.p50).toBeCloseTo(30, 0);
    expect(split.inHandler.max).toBe(30);
    expect(split.inHandler.p50).toBe(9);
    expect(split.toCaller.max).toBeCloseTo(10, 0);
    expect(split.toCaller.p50).toBeCloseTo(1, 0);
  });

  it('leaves out what is not a logged POST of a caller: polls, MCP, other callers, v2', () => {
    const t = Date.now();
    const splits = postPaths(
      [sample('127.1.0.1', t, 50, 'GET poll'), sample('127.1.0.2', t, 50), sample('127.1.0.3', t, 50)],
      [logLine('127.1.0.1', t + 40, 5), logLine('127.1.0.3', t + 40, 5, '/mcp'), { event: 'scan_queued', ip: '127.1.0.2', time: t + 10 }],
      () => 'v1',
    );
    expect(splits.size).toBe(0);
  });
});
