import { defineConfig } from 'vitest/config';

// Projects: pure logic (no compiler, no root; loopback at most), the real addon
// against loopback and network-namespace hosts, the cluster, the real server,
// the page in the system's Chromium against the real server, and the built
// `selfscan check` client spawned against the real server.
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
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
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
