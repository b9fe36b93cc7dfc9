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
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: { name: 'facts', include: ['test/facts/**/*.test.ts'], fileParallelism: false, testTimeout: 60_000, hookTimeout: 60_000 },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
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
