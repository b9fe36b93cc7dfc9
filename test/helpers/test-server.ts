// The real server, in this process, on port 0 with a fresh data dir, its
// log lines kept for assertions. The scanner, store, rate limits and clock
// may be injected; by default they are the real ones.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

import { pino } from 'pino';

import { type Config, DEFAULT_CONFIG } from '../../src/config/config.js';
import { HTTP_SERVER_CHOICES, type HttpServerChoice } from '../../src/config/http-server-choices.js';
import type { RunningServer, ServeDependencies } from '../../src/roles/running-server.js';
import { startServer } from '../../src/roles/serve.js';
import { LOOPBACK_DNS, NO_LIMITS } from '../../support/no-limits.js';

export interface TestServer {
  url: string;
  server: RunningServer;
  dataDir: string;
  logs: Record<string, unknown>[];
  close(): Promise<void>;
}

/** The front a project's suites run against (its env sets SELFSCAN_HTTP_SERVER, as child servers read it too); `auto` otherwise. */
export function testHttpServer(): HttpServerChoice {
  const asked = process.env.SELFSCAN_HTTP_SERVER ?? 'auto';
  if (!(HTTP_SERVER_CHOICES as readonly string[]).includes(asked)) throw new Error(`SELFSCAN_HTTP_SERVER=${asked} names no front`);
  return asked as HttpServerChoice;
}

export async function startTestServer(overrides: Partial<Config> = {}, deps: ServeDependencies = {}): Promise<TestServer> {
  const dataDir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), 'selfscan-test-'));
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const config: Config = {
    ...DEFAULT_CONFIG,
    http: { ...DEFAULT_CONFIG.http, server: testHttpServer() },
    host: '127.0.0.1',
    port: 0,
    allowPrivateTargets: true,
    drainSeconds: 1,
    limits: NO_LIMITS,
    dns: LOOPBACK_DNS,
    ...overrides,
    dataDir,
  };
  const server = await startServer(config, logger, deps);
  return {
    url: `http://127.0.0.1:${server.port}`,
    server,
    dataDir,
    logs,
    close: async () => {
      await server.close();
      if (overrides.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
