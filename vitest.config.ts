import { resolve } from 'node:path';

import { defineConfig } from 'vitest/config';

/** The native test files that scan: they run once per readiness backend. */
const scanningNativeTests = [
  'scanner-exactness',
  'scanner-lifecycle',
  'scan-defaults',
  'learned-timing',
  'hostile-drop-reject',
  'hostile-rst-limit',
  'hostile-syn-limit',
  'hostile-concurrent',
  'internet-paths',
].map((name) => `test/native/${name}.test.ts`);
/** The syn engine's run: the scanning files, and the decoy host's (a SYN proxy that answers every port). */
const synNativeTests = [...scanningNativeTests, 'test/native/decoy-host.test.ts', 'test/native/forged-answers.test.ts'];
const nativeProject = { fileParallelism: false, testTimeout: 120_000, hookTimeout: 60_000 };
/** The suites that drive the HTTP front: the integration, page and cluster suites (their files that serve HTTP) run once more on Node's front. */
const nodeFront = { SELFSCAN_HTTP_SERVER: 'node' };
const httpClusterTests = ['cluster-nodes', 'cluster-webhooks', 'cluster-metrics', 'multi-region-interfaces'].map((name) => `test/cluster/${name}.test.ts`);
const serverProject = { fileParallelism: false, testTimeout: 120_000, hookTimeout: 60_000 };

// Projects: pure logic (no compiler, no root; loopback at most), the real addon
// against loopback and network-namespace hosts, the cluster, the real server,
// the page in the system's Chromium against the real server, the facts probes
// against real and hostile servers on loopback, and the built
// `selfscan check` client spawned against the real server.
// The native files that scan run three times on the connect engine, once per
// readiness backend (test/helpers/test-scanner.ts): epoll, poll, and kqueue
// over the kqueue-on-epoll translation, built by
// scripts/build-kqueue-translation.mjs; and once more on the syn engine
// (raw sockets: root, or CAP_NET_RAW) over epoll.
// The suites that serve HTTP run on each front (SELFSCAN_HTTP_SERVER, which
// the test server and every server process a test spawns read): `auto` in
// `integration`, `browser` and `cluster` (uWS on Node 20, where it loads;
// Node's http on the Node 22 and 24 legs), Node's http in their `-node` twins.
// Native and integration tests measure real sockets and time, so every file
// runs on its own (maxWorkers: 1), also across projects.
export default defineConfig({
  test: {
    maxWorkers: 1,
    projects: [
      {
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        test: {
          name: 'native',
          include: ['test/native/**/*.test.ts'],
          env: { SELFSCAN_TEST_POLLER: 'epoll', SELFSCAN_TEST_ENGINE: 'connect' },
          ...nativeProject,
        },
      },
      {
        test: { name: 'native-poll', include: scanningNativeTests, env: { SELFSCAN_TEST_POLLER: 'poll', SELFSCAN_TEST_ENGINE: 'connect' }, ...nativeProject },
      },
      {
        test: {
          name: 'native-kqueue',
          include: scanningNativeTests,
          env: { SELFSCAN_TEST_POLLER: 'kqueue', SELFSCAN_TEST_ENGINE: 'connect', SELFSCAN_PREBUILD: resolve('build/kqueue-on-epoll') },
          ...nativeProject,
        },
      },
      {
        test: { name: 'native-syn', include: synNativeTests, env: { SELFSCAN_TEST_POLLER: 'epoll', SELFSCAN_TEST_ENGINE: 'syn' }, ...nativeProject },
      },
      {
        test: { name: 'cluster', include: ['test/cluster/**/*.test.ts'], ...serverProject },
      },
      {
        test: { name: 'cluster-node', include: httpClusterTests, env: nodeFront, ...serverProject },
      },
      {
        // The udp scan's probes against Debian's real UDP servers in network namespaces (root).
        test: { name: 'udp', include: ['test/udp/**/*.test.ts'], fileParallelism: false, testTimeout: 120_000, hookTimeout: 60_000 },
      },
      {
        test: { name: 'facts', include: ['test/facts/**/*.test.ts'], fileParallelism: false, testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...serverProject },
      },
      {
        // The package's install is the same whatever front serves; node-front forces its front itself.
        test: {
          name: 'integration-node',
          include: ['test/integration/**/*.test.ts'],
          exclude: ['test/integration/package-install.test.ts', 'test/integration/node-front.test.ts', 'test/integration/http-front-choice.test.ts'],
          env: nodeFront,
          ...serverProject,
        },
      },
      {
        test: { name: 'browser', include: ['test/browser/**/*.test.ts'], ...serverProject },
      },
      {
        test: { name: 'browser-node', include: ['test/browser/**/*.test.ts'], env: nodeFront, ...serverProject },
      },
      {
        test: {
          name: 'client',
          include: ['test/client/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
