// The page's server for browser tests and the caller it sees. Chromium
// cannot choose its source address (from loopback it is always 127.0.0.1),
// so the server trusts 127.0.0.1 as a proxy and the browser context sends
// `X-Forwarded-For: CALLER`: each test scans its own 127.0.0.X, where only
// its own listeners are, whatever else listens on 127.0.0.1.
import type { BrowserContextOptions } from 'playwright-core';

import type { Config } from '../../src/config/config.js';
import type { ServeDependencies } from '../../src/roles/running-server.js';
import { startTestServer, type TestServer } from './test-server.js';

/** A real server that believes the browser's X-Forwarded-For. */
export function startPageServer(overrides: Partial<Config> = {}, deps: ServeDependencies = {}): Promise<TestServer> {
  return startTestServer({ trustProxy: ['127.0.0.1/32'], ...overrides }, deps);
}

/** Browser context options that make the page's requests come from `caller`. */
export function asCaller(caller: string): BrowserContextOptions {
  return { extraHTTPHeaders: { 'X-Forwarded-For': caller } };
}
