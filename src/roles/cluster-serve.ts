// `selfscan serve --redis URL`: one node of a cluster, the composition root
// of the roles over Redis. An API node (`--role api`) answers HTTP, starts
// scans atomically in Redis, streams their events from the channel, works
// finish and webhook jobs; it never loads the native scanner. A scanner
// node (`--role scanner --region NL`) works its region's chunk jobs and
// serves only /healthz. `all` is both. bullmq and ioredis are loaded only
// here, so a single process never needs them.
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

import type { Health } from '../api/health.js';
import { VERSION } from '../api/version.js';
import { type Config, scanBudgetsMs } from '../config/config.js';
import { parseRedisUrl } from '../config/redis-url.js';
import { createHealthApp } from '../http/health.js';
import type { Metrics } from '../metrics/metrics.js';
import { countCommands } from '../metrics/redis-command-metrics.js';
import { type Clock, systemClock } from '../model/clock.js';
import { ChunkDispatch } from '../redis/chunk-jobs.js';
import { ChunkWork } from '../redis/chunk-work.js';
import { startClusterSweep } from '../redis/cluster-sweep.js';
import { ClusterWatchers } from '../redis/cluster-watchers.js';
import { refuseEviction } from '../redis/eviction-policy.js';
import { FinishJobs } from '../redis/finish-jobs.js';
import { primaryReady } from '../redis/primary-ready.js';
import { watchPrimary } from '../redis/primary-watch.js';
import { bullmqConnection, commandConnection } from '../redis/redis-connection.js';
import { RedisFingerprints } from '../redis/redis-fingerprints.js';
import { RedisRateLimitStore } from '../redis/redis-rate-limit-store.js';
import { RedisResultStore } from '../redis/redis-result-store.js';
import { RedisScanBook } from '../redis/redis-scan-book.js';
import { RedisScanProgress } from '../redis/redis-scan-progress.js';
import { RedisScanStarts } from '../redis/redis-scan-starts.js';
import { ReplicaWait } from '../redis/replica-wait.js';
import { ScannerNode } from '../redis/scanner-node.js';
import { announceScanner, ScannerRegions } from '../redis/scanner-registry.js';
import { checkSentinels } from '../redis/sentinel-preflight.js';
import { startExpirySweep } from '../scan/expiry-sweep.js';
import { createPtrLookup } from '../scan/ptr-lookup.js';
import { ScanFinisher } from '../scan/scan-finisher.js';
import { ScanLifecycle } from '../scan/scan-lifecycle.js';
import { openUdpScanner } from '../udp/open-udp-scanner.js';
import type { WebhookService } from '../webhook/webhook-service.js';
import { openApiRole } from './api-role.js';
import { openClusterWebhooks } from './cluster-webhooks.js';
import { factsStage, scanExposure } from './exposure-parts.js';
import { openNodeMetrics } from './node-metrics.js';
import type { RunningServer, ServeDependencies } from './running-server.js';
import { openNativeScanner } from './scanner-engine.js';

/** Chunks one scanner node scans at once, when concurrency.deep is not set. */
const DEFAULT_CHUNK_CONCURRENCY = 16;
const DEFAULT_REGION = 'default';

export async function startClusterServer(config: Config, logger: Logger, deps: ServeDependencies = {}): Promise<RunningServer> {
  const url = config.redisUrl!;
  const clock: Clock = deps.clock ?? systemClock;
  const { role } = config;
  const serveApi = role !== 'scanner';
  const scan = role !== 'api';
  const regionList = config.region?.split(',') ?? [];
  const scannerRegion = regionList[0] ?? DEFAULT_REGION;
  const connections: { disconnect(): void }[] = [];
  const connect = <T extends { disconnect(): void }>(connection: T): T => {
    connections.push(connection);
    return connection;
  };
  // The scanner first: a node that cannot scan as asked (scanner.engine syn without CAP_NET_RAW) stops before it touches Redis.
  const native = scan ? (deps.scanner ?? (await openNativeScanner(config.scanner, logger))) : undefined;
  const engine = native?.stats().engine ?? null;
  const nodeMetrics = openNodeMetrics(config, role, logger);
  const { metrics } = nodeMetrics;
  if (native !== undefined) metrics.watchEngine(() => native.stats());
  // Sentinels first: ones that refuse us or know no such master stop the start (exit 2); ones that do not answer are waited for.
  const target = parseRedisUrl(url);
  if (target.kind === 'sentinel') await checkSentinels(target, url, logger);
  const redis = connect(countCommands(commandConnection(url), metrics));
  try {
    await primaryReady(redis, url, logger);
    await refuseEviction(redis);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  watchPrimary(redis, metrics, logger);
  // BullMQ's connections retry on their own; the command connection's watcher logs an outage once, not once per retry and connection.
  const bullmq = () => connect(quiet(bullmqConnection(url)));
  const progress = new RedisScanProgress(redis);
  // A scan start and a webhook registration are secured against a failover (redisWait): API nodes only, as only they answer them.
  const durable = serveApi ? await openReplicaWait(connect(quiet(commandConnection(url))), url, config, metrics, logger) : undefined;
  const dispatch = new ChunkDispatch(bullmq);
  const budgetMs = scanBudgetsMs(config);
  const closers: (() => Promise<void> | void)[] = [];
  // One resolver for the scanner side's facts stage and the API side's finish jobs.
  const lookupPtr = createPtrLookup(config.dns);

  let scanner: ScannerNode | undefined;
  if (native !== undefined) {
    const concurrency = config.concurrency.deep ?? DEFAULT_CHUNK_CONCURRENCY;
    const examine = factsStage(config);
    scanner = new ScannerNode(
      {
        region: scannerRegion,
        scanner: native,
        udpScanner: await openUdpScanner(config.scanner.udpSourceAddresses, logger),
        progress,
        dispatch,
        concurrency,
        examine,
        lookupPtr,
        logger,
        metrics,
      },
      bullmq(),
    );
    const announced = announceScanner(redis, scannerRegion, (error) => logger.warn({ err: error }, 'scanner heartbeat failed'));
    closers.push(
      () => announced.stop(),
      () => scanner!.close(),
    );
  }

  let api: Awaited<ReturnType<typeof openApiRole>> | undefined;
  let watchers: ClusterWatchers | undefined;
  let webhooks: WebhookService | undefined;
  if (serveApi) {
    const store = deps.store ?? new RedisResultStore(redis);
    watchers = await ClusterWatchers.open(bullmq(), progress, logger);
    webhooks = await openClusterWebhooks({
      redis,
      redisUrl: url,
      config: config.webhooks,
      allowPrivateCallbacks: config.allowPrivateCallbacks,
      userAgent: `selfscan/${VERSION}`,
      logger,
      metrics,
      work: true,
      durable,
    });
    const fingerprints = new RedisFingerprints(redis);
    const exposure = scanExposure(config, fingerprints, logger);
    const finisher = new ScanFinisher({ ends: progress, store, webhooks, exposure, clock, logger, metrics });
    const finishWorker = new FinishJobs({ progress, finisher, lookupPtr }).work(bullmq());
    const regions = new ScannerRegions(redis, role === 'all' ? [scannerRegion] : regionList);
    const starts = new RedisScanStarts(redis);
    const book = new RedisScanBook(starts, progress, watchers);
    const work = new ChunkWork({ regions, dispatch, window: config.chunkWindow, budgetMs, durable, starts });
    const scans = new ScanLifecycle({ book, work, clock, logger, metrics });
    const stopSweep = startClusterSweep({ store, progress, dispatch, window: config.chunkWindow, budgetMs, clock, logger });
    const stopExpiry = startExpirySweep({ results: store, fingerprints }, clock, logger);
    const rateLimits = deps.rateLimits ?? new RedisRateLimitStore(redis);
    // The page offers a scan from every region only while several have live scanner nodes; none (or Redis down): no offer.
    const liveRegions = () => regions.resolve('all').catch((): string[] => []);
    api = await openApiRole(config, {
      scans,
      webhooks,
      rateLimits,
      health: () => health(),
      clock,
      logger,
      liveRegions,
      metrics,
      mounted: nodeMetrics.mounted,
      front: nodeMetrics.front,
    });
    closers.push(
      () => stopSweep(),
      () => stopExpiry(),
      () => finishWorker.close(),
      () => webhooks!.close(),
      () => watchers!.close(),
    );
  }

  const health = async (): Promise<Health> => {
    const up = await redis.ping().then(
      () => true,
      () => false,
    );
    const jobsInHand = (scanner?.jobsInHand ?? 0) + (watchers?.size ?? 0);
    return {
      ok: up,
      role,
      region: scan ? scannerRegion : (config.region ?? null),
      redis: up ? 'up' : 'down',
      jobsInHand,
      engine,
      http_server: nodeMetrics.front.name,
    };
  };
  // Chunk jobs waiting in each region's queue this node knows: every live region's on an API node, its own on a scanner node.
  const registry = new ScannerRegions(redis, []);
  const queueRegions = serveApi ? () => registry.known('all') : async () => [scannerRegion];
  metrics.gaugeBy('selfscan_queue_depth', 'Chunk jobs waiting in line, by queue (the region whose scanner nodes run them)', 'queue', async () =>
    Object.fromEntries(await Promise.all((await queueRegions()).map(async (region) => [region, await dispatch.waiting(region)]))),
  );
  const http = api?.http ?? createHealthApp(nodeMetrics.front, health, nodeMetrics.onHealthApp);
  const port = await http.listen(config.host, config.port);
  const metricsPort = await nodeMetrics.listen(logger);
  logger.info(
    { event: 'listening', host: config.host, port, http_server: nodeMetrics.front.name, role, region: scan ? scannerRegion : config.region, cluster: true },
    `selfscan ${role} node listening on ${config.host}:${port}`,
  );

  let closing: Promise<void> | undefined;
  return {
    port,
    httpServer: nodeMetrics.front.name,
    metricsPort,
    routes: http.routes,
    close: () =>
      (closing ??= (async () => {
        http.stopListening();
        nodeMetrics.stop();
        for (const close of closers.reverse()) await close();
        api?.close();
        await dispatch.close();
        for (const connection of connections) connection.disconnect();
        logger.info({ event: 'stopped' }, 'selfscan stopped');
      })()),
  };
}

/** `redis` with its connection errors left to the command connection's watcher (ioredis prints an unheard 'error' on stderr). */
function quiet(redis: Redis): Redis {
  redis.on('error', () => {});
  return redis;
}

/** The durability wait on a connection of its own, once that reaches the primary. */
async function openReplicaWait(connection: Redis, url: string, config: Config, metrics: Metrics, logger: Logger): Promise<ReplicaWait> {
  await primaryReady(connection, url, logger);
  return ReplicaWait.open(connection, config.redisWait, metrics, logger);
}
