// A cluster of selfscan processes for tests: its own redis-server (unix
// socket), then API and scanner nodes started as `selfscan serve --redis`,
// each a real process that a test may kill -9.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Health } from '../src/api/health.js';
import { type CliEntry, type Placement, type ServerProcess, startServerProcess } from './server-process.js';

export interface NodeSpec {
  role: 'api' | 'scanner';
  region?: string;
  /** More settings of this node's config file. */
  config?: object;
  /** Where it runs (a scanner node in its region's network namespace: support/region-namespaces.ts); default here, on 127.0.0.1. */
  place?: Placement;
}

/**
 * Starts one node against the Redis at `redis` (a unix socket's path, or a
 * URL: `redis+sentinel://…`), from source unless `entry` says otherwise
 * (benchmarks run the build).
 */
export function startNode(redis: string, spec: NodeSpec, entry?: CliEntry): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), `selfscan-${spec.role}-`));
  const config = {
    redisUrl: redis.includes('://') ? redis : `unix://${redis}`,
    role: spec.role,
    logLevel: 'debug',
    ...(spec.region === undefined ? {} : { region: spec.region }),
    ...spec.config,
  };
  return startServerProcess(dataDir, config, entry, undefined, spec.place);
}

/** GET /healthz of a node. */
export async function healthOf(node: ServerProcess): Promise<Health> {
  const response = await fetch(`${node.url}/healthz`);
  return (await response.json()) as never;
}

/** Stops nodes still running (kill -9: their state is Redis's). */
export function killAll(nodes: readonly ServerProcess[]): Promise<unknown> {
  return Promise.all(
    nodes.map((node) => {
      if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGKILL');
      return node.exited;
    }),
  );
}
