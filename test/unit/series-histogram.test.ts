import { Registry } from 'prom-client';
import { expect, it } from 'vitest';

import { SeriesHistogram } from '../../src/metrics/series-histogram.js';

it('writes cumulative buckets, +Inf, sum and count per series in the text format, and resets them', async () => {
  const registry = new Registry();
  const histogram = new SeriesHistogram('t_seconds', 'A test histogram', [0.1, 1], registry);
  const fast = histogram.seriesFor({ route: '/v1/fast', status: '200' });
  const slow = histogram.seriesFor({ route: 'a"b', status: '500' });
  for (const value of [0.05, 0.1, 0.5, 7]) histogram.observe(fast, value);
  histogram.observe(slow, 2);

  const text = await registry.metrics();
  expect(text).toContain('# HELP t_seconds A test histogram\n# TYPE t_seconds histogram\n');
  const lines = text.split('\n').filter((line) => line.startsWith('t_seconds'));
  expect(lines).toEqual([
    't_seconds_bucket{route="/v1/fast",status="200",le="0.1"} 2',
    't_seconds_bucket{route="/v1/fast",status="200",le="1"} 3',
    't_seconds_bucket{route="/v1/fast",status="200",le="+Inf"} 4',
    't_seconds_sum{route="/v1/fast",status="200"} 7.65',
    't_seconds_count{route="/v1/fast",status="200"} 4',
    't_seconds_bucket{route="a\\"b",status="500",le="0.1"} 0',
    't_seconds_bucket{route="a\\"b",status="500",le="1"} 0',
    't_seconds_bucket{route="a\\"b",status="500",le="+Inf"} 1',
    't_seconds_sum{route="a\\"b",status="500"} 2',
    't_seconds_count{route="a\\"b",status="500"} 1',
  ]);

  registry.resetMetrics();
  expect((await registry.metrics()).split('\n').filter((line) => line.startsWith('t_seconds_count'))).toEqual([
    't_seconds_count{route="/v1/fast",status="200"} 0',
    't_seconds_count{route="a\\"b",status="500"} 0',
  ]);
});
