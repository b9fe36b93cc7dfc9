// The service's Prometheus metrics: one registry per server (tests run
// several in one process), the catalogue of what is counted, and one method
// per thing that happens. Label values come from small fixed sets (scan
// types, statuses, route patterns, limit names, Redis command names):
// never an IP, a URL or a scan id. Node's own metrics (event-loop lag,
// memory, CPU, GC) are prom-client's defaults.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

import type { ScanType } from '../api/scan-type.js';
import type { ScanOrigin, ScanRecord } from '../model/scan-record.js';
import type { NativeEngineStats } from '../native/binding.js';
import { type Series, SeriesHistogram } from './series-histogram.js';

/** The text format's content type, as prom-client writes it. */
export const METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/** What a gauge reads when it is scraped. */
export type Reading = () => number | Promise<number>;

/** A scan's region as a label: a single process has none. */
const regionLabel = (record: Pick<ScanRecord, 'region' | 'regions'>): string => (record.regions !== undefined ? 'multi' : (record.region ?? 'local'));

/** What a scanner's stats read when it keeps no such total. */
const ZERO_STATS: NativeEngineStats = {
  poller: 'epoll',
  engine: 'connect',
  fdLimit: 0,
  budget: 0,
  inFlight: 0,
  scans: 0,
  localRetries: 0,
  canaries: 0,
  canariesLost: 0,
  canariesLostToPath: 0,
  silencesContradicted: 0,
  answersIgnored: 0,
  synsSentToDevice: 0,
  synsSentThroughIp: 0,
};

const SCAN_SECONDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800];
const REQUEST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60, 300, 1800];
const REDIS_SECONDS = [0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 3];

export class Metrics {
  readonly registry = new Registry();
  private readonly scansStarted = this.counter('selfscan_scans_started_total', 'Scans started (not joined), by type, origin and region', [
    'type',
    'origin',
    'region',
  ]);
  private readonly scansJoined = this.counter('selfscan_scans_joined_total', 'Requests that joined a scan in flight instead of starting one', [
    'type',
    'origin',
  ]);
  private readonly scansFinished = this.counter('selfscan_scans_finished_total', 'Scans ended, by type, status, origin and region', [
    'type',
    'status',
    'origin',
    'region',
  ]);
  private readonly scanSeconds = this.histogram(
    'selfscan_scan_duration_seconds',
    'Scan duration from start to end, by type and status',
    ['type', 'status'],
    SCAN_SECONDS,
  );
  private readonly queueWait = this.histogram(
    'selfscan_queue_wait_seconds',
    'Time a scan (a chunk job, on a cluster scanner node) waited in line before it ran',
    ['type'],
    SCAN_SECONDS,
  );
  private readonly portsProbed = this.counter('selfscan_ports_probed_total', 'Ports whose state a sweep learned, by engine and scan type', ['engine', 'type']);
  private readonly sseOpen = new Gauge({ name: 'selfscan_sse_streams_open', help: 'v2 Server-Sent Events streams open now', registers: [this.registry] });
  private readonly requestSeconds = new SeriesHistogram(
    'selfscan_http_request_duration_seconds',
    'HTTP requests by route pattern, method and status (or aborted), with the time to their answer (a stream: its whole life)',
    REQUEST_SECONDS,
    this.registry,
  );
  private readonly refusals = this.counter(
    'selfscan_refusals_total',
    'Requests and scans refused by the abuse controls, by scope (the limit or rule) and error',
    ['scope', 'error'],
  );
  private readonly webhookAttempts = this.counter(
    'selfscan_webhook_attempts_total',
    'Webhook delivery attempts, by outcome (delivered, retry, rejected, refused)',
    ['outcome'],
  );
  private readonly webhookDeliveries = this.histogram(
    'selfscan_webhook_delivery_attempts',
    'Webhook deliveries that ended (delivered or given up), by outcome, with the attempts each took',
    ['outcome'],
    [1, 2, 3, 4, 5, 6, 8, 10],
  );
  private readonly redisSeconds = this.histogram(
    'selfscan_redis_command_duration_seconds',
    "Round trip of this node's own Redis commands (not BullMQ's), by command",
    ['command'],
    REDIS_SECONDS,
  );
  private readonly redisErrors = this.counter('selfscan_redis_command_errors_total', "This node's Redis commands that failed, by command", ['command']);
  private readonly redisReconnections = this.counter(
    'selfscan_redis_reconnections_total',
    "Times this node's command connection reached the Redis primary again after losing it",
    [],
  );
  private readonly redisFailovers = this.counter(
    'selfscan_redis_failovers_total',
    'Reconnections that found a different primary than before (the Sentinels promoted a replica)',
    [],
  );
  private readonly redisReplayed = this.counter(
    'selfscan_redis_replayed_total',
    'Scan starts and webhook registrations written again because no replica had acknowledged them (redisWait.mode replay), by what the write found',
    ['outcome'],
  );
  private readonly redisUnreplicated = this.counter(
    'selfscan_redis_unreplicated_total',
    'Scan starts and webhook registrations no replica acknowledged in time: answered anyway (redisWait.mode wait) or given up on after a minute (replay)',
    [],
  );
  /** The probe engine of this node's scanner (watchEngine), for the probe counts. */
  private engine = 'none';
  /** The request histogram's series by route, method and status: each label set looked up, not hashed, per request. */
  private readonly requestSeriesByLabels = new Map<string, Map<string, Map<string, Series>>>();

  constructor(info: { version: string; role: string; http_server: string }) {
    collectDefaultMetrics({ register: this.registry });
    const gauge = new Gauge({
      name: 'selfscan_info',
      help: 'This node: version, role and HTTP server (uws or node)',
      labelNames: ['version', 'role', 'http_server'],
      registers: [this.registry],
    });
    gauge.set(info, 1);
  }

  /** The registry in the Prometheus text format. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  scanStarted(record: ScanRecord): void {
    this.scansStarted.inc({ type: record.scanType, origin: record.origin, region: regionLabel(record) });
  }

  scanJoined(scanType: ScanType, origin: ScanOrigin): void {
    this.scansJoined.inc({ type: scanType, origin });
  }

  scanFinished(record: ScanRecord): void {
    this.scansFinished.inc({ type: record.scanType, status: record.status, origin: record.origin, region: regionLabel(record) });
    if (record.durationMs !== null) this.scanSeconds.observe({ type: record.scanType, status: record.status }, record.durationMs / 1000);
  }

  /** A scan (or chunk job) of `scanType` starts to run after waiting `waitedMs`. */
  queueWaited(scanType: ScanType, waitedMs: number): void {
    this.queueWait.observe({ type: scanType }, Math.max(0, waitedMs) / 1000);
  }

  /** A sweep of `scanType` on this node's scanner learned the state of `ports` ports. */
  probed(scanType: ScanType, ports: number): void {
    if (ports > 0) this.portsProbed.inc({ engine: this.engine, type: scanType }, ports);
  }

  streamOpened(): void {
    this.sseOpen.inc();
  }

  streamClosed(): void {
    this.sseOpen.dec();
  }

  /** The request histogram's series of `route` (a route pattern, or `unmatched`), `method` and `status` (bounded values only). */
  requestSeries(route: string, method: string, status: string): Series {
    let byMethod = this.requestSeriesByLabels.get(route);
    if (byMethod === undefined) this.requestSeriesByLabels.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (series === undefined) byStatus.set(status, (series = this.requestSeconds.seriesFor({ route, method, status })));
    return series;
  }

  /** An HTTP request of `series` answered after `seconds`. */
  requestAnswered(series: Series, seconds: number): void {
    this.requestSeconds.observe(series, seconds);
  }

  refused(scope: string, error: string): void {
    this.refusals.inc({ scope, error });
  }

  /** A webhook attempt; `ended` when it was the delivery's last (delivered, or given up). */
  webhookAttempted(outcome: string, attempt: number, ended: boolean): void {
    this.webhookAttempts.inc({ outcome });
    if (ended) this.webhookDeliveries.observe({ outcome: outcome === 'delivered' ? 'delivered' : 'given_up' }, attempt);
  }

  redisCommand(command: string, seconds: number, failed: boolean): void {
    this.redisSeconds.observe({ command }, seconds);
    if (failed) this.redisErrors.inc({ command });
  }

  /** The command connection reached the primary again; `failover`: a different primary than before. */
  redisReconnected(failover: boolean): void {
    this.redisReconnections.inc();
    if (failover) this.redisFailovers.inc();
  }

  /** A held write written again (`outcome`: what it found, e.g. kept, restored). */
  redisReplay(outcome: string): void {
    this.redisReplayed.inc({ outcome });
  }

  /** A write no replica acknowledged in time. */
  redisUnreplicatedWrite(): void {
    this.redisUnreplicated.inc();
  }

  /**
   * This node's scanner: its engine labels the probe counts, and its own
   * totals are read at each scrape (canaries lost to the path or to a
   * limiter's drops, which slow the pace; probes in flight; answers the syn
   * engine ignored).
   */
  watchEngine(stats: () => Partial<NativeEngineStats>): void {
    // A scanner a test gives may keep fewer totals: those it lacks read 0.
    const read = (): NativeEngineStats => ({ ...ZERO_STATS, ...stats() });
    const engine = read().engine;
    this.engine = engine;
    const labels = { engine };
    this.mirroredCounter('selfscan_canaries_total', 'Canary probes sent (re-probes of ports known to answer, to see drops)', ['engine'], () => [
      [labels, read().canaries],
    ]);
    this.mirroredCounter(
      'selfscan_canaries_lost_total',
      "Canaries that went unanswered, by cause: the path's own random loss (the pace ignores it) or a limiter dropping probes (the pace backs off)",
      ['engine', 'cause'],
      () => {
        const { canariesLost, canariesLostToPath } = read();
        return [
          [{ engine, cause: 'path_loss' }, canariesLostToPath],
          [{ engine, cause: 'limiter' }, canariesLost - canariesLostToPath],
        ];
      },
    );
    this.mirroredCounter(
      'selfscan_silences_contradicted_total',
      "Silences that counted towards a port's filtered verdict though the port answered later (they raise the silences a verdict needs)",
      ['engine'],
      () => [[labels, read().silencesContradicted]],
    );
    this.mirroredCounter('selfscan_probe_local_retries_total', 'Probes put back after a local resource error (EMFILE, EADDRNOTAVAIL)', ['engine'], () => [
      [labels, read().localRetries],
    ]);
    this.mirroredCounter(
      'selfscan_syn_answers_ignored_total',
      'Packets the syn engine read that answered no probe of its own (late, duplicate or forged)',
      ['engine'],
      () => [[labels, read().answersIgnored]],
    );
    this.mirroredCounter(
      'selfscan_syns_sent_total',
      'SYNs the syn engine sent, by way: straight to the network device (device) or through the IP layer (ip)',
      ['engine', 'way'],
      () => [
        [{ ...labels, way: 'device' }, read().synsSentToDevice],
        [{ ...labels, way: 'ip' }, read().synsSentThroughIp],
      ],
    );
    this.gauge('selfscan_probes_in_flight', 'Probes waiting for an answer now', () => read().inFlight);
    this.gauge('selfscan_scanner_sweeps', 'Sweeps the scanner is running now', () => read().scans);
  }

  /** A gauge read at each scrape. */
  gauge(name: string, help: string, read: Reading): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }

  /** A gauge with one series per label value, read at each scrape. */
  gaugeBy(name: string, help: string, label: string, read: () => Promise<Record<string, number>> | Record<string, number>): void {
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [value, reading] of Object.entries(await read())) this.set({ [label]: value }, reading);
      },
    });
  }

  /**
   * A counter that mirrors totals kept elsewhere (the native engine's), one
   * series per label set `read` returns, read at each scrape.
   */
  mirroredCounter(name: string, help: string, labelNames: string[], read: () => [Record<string, string>, number][]): void {
    const seen = new Map<string, number>();
    new Counter({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        for (const [labels, total] of read()) {
          const key = JSON.stringify(labels);
          const before = seen.get(key) ?? 0;
          this.inc(labels, Math.max(0, total - before)); // a series from the first scrape, 0 included
          seen.set(key, Math.max(before, total));
        }
      },
    });
  }

  private counter<L extends string>(name: string, help: string, labelNames: L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string>(name: string, help: string, labelNames: L[], buckets: number[]): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }
}
