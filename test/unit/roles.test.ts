// The roles' seams: what an API-only process imports never loads the
// native scanner, so API nodes run where the addon is absent or unbuilt.
import { execFile } from 'node:child_process';

import { describe, expect, it } from 'vitest';

const PROBE = new URL('./children/native-load-probe.ts', import.meta.url).pathname;
const src = (path: string): string => new URL(`../../src/${path}`, import.meta.url).href;

function nativeLibrariesLoadedBy(...modules: string[]): Promise<string[]> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', PROBE, ...modules], (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as string[]),
    ),
  );
}

describe('the API role', () => {
  it('sees native libraries loaded (the probe works)', async () => {
    const loaded = await nativeLibrariesLoadedBy('lmdb');
    expect(loaded.some((file) => /lmdb/.test(file))).toBe(true);
  });

  it('loads no scanner: not its modules, nor the composition root of serve, which loads it on demand', async () => {
    const loaded = await nativeLibrariesLoadedBy(
      src('roles/api-role.ts'),
      src('scan/scan-lifecycle.ts'),
      src('memory/memory-scan-book.ts'),
      src('memory/memory-scan-queue.ts'),
      src('memory/in-process-scan-events.ts'),
      src('lmdb/lmdb-store.ts'),
      src('roles/serve.ts'),
    );
    expect(loaded.filter((file) => /selfscan\.node$|prebuilds/.test(file))).toEqual([]);
  });
});
