// A Prometheus histogram for a hot path: each label set's series is an
// object the caller keeps, and observing is a walk over its buckets. A
// prom-client Histogram hashes the label values on every observe (children
// from labels() included), which on the GET of a kept result cost more
// than the rest of its metrics. Registered with a prom-client Registry as a
// metric of its own: the registry asks get() at each scrape and writes it
// out (escaping, `le`) like its own histograms.
import type { Registry } from 'prom-client';

/** One label set's counts; `bucketCounts[i]` counts the values in (bucket i-1, bucket i], the last slot those above every bucket. */
export interface Series {
  readonly labels: Readonly<Record<string, string>>;
  readonly bucketCounts: Float64Array;
  sum: number;
  count: number;
}

/** One line of the text format, as the registry takes it from get(). */
interface Sample {
  metricName: string;
  labels: Readonly<Record<string, string | number>>;
  value: number;
}

export class SeriesHistogram {
  readonly type = 'histogram';
  private readonly series: Series[] = [];

  /** `buckets`: upper bounds, ascending. */
  constructor(
    readonly name: string,
    readonly help: string,
    private readonly buckets: readonly number[],
    registry: Registry,
  ) {
    registry.registerMetric(this as never); // the registry reads only name, help, type and get()
  }

  /** A new series for `labels`: the caller keeps it and finds it again, each label set asked once. */
  seriesFor(labels: Record<string, string>): Series {
    const series: Series = { labels: { ...labels }, bucketCounts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
    this.series.push(series);
    return series;
  }

  observe(series: Series, value: number): void {
    const buckets = this.buckets;
    let i = 0;
    while (i < buckets.length && value > buckets[i]!) i++;
    series.bucketCounts[i]!++;
    series.sum += value;
    series.count++;
  }

  /** What the registry writes: cumulative `_bucket` counts per `le` (then +Inf), `_sum` and `_count`, per series. */
  get(): { name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' } {
    const values: Sample[] = [];
    for (const { labels, bucketCounts, sum, count } of this.series) {
      let cumulative = 0;
      this.buckets.forEach((bound, i) => {
        cumulative += bucketCounts[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: bound }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' };
  }

  /** The registry's resetMetrics(): every series back to zero. */
  reset(): void {
    for (const series of this.series) {
      series.bucketCounts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}
