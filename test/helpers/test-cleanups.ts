// What a test file undoes after each of its tests: the cleanups pushed
// during the test, the last pushed first, and the temporary directories it
// made.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach } from 'vitest';

export interface TestCleanups {
  /** Run after the current test, the last pushed first. */
  cleanups: (() => Promise<void> | void)[];
  /** A new directory in the system's temporary one, its name starting with the prefix given; removed after the current test. */
  tempDir(): string;
}

/** Registers the afterEach hook of a test file's cleanups; `tempPrefix` begins the names of its temporary directories. */
export function cleanupAfterEach(tempPrefix: string): TestCleanups {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    tempDir() {
      const dir = mkdtempSync(join(tmpdir(), tempPrefix));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return dir;
    },
  };
}
