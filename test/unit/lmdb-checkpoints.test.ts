// The lmdb scan checkpoints against a real environment in a fresh temp dir.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { LmdbCheckpoints } from '../../src/lmdb/lmdb-checkpoints.js';
import type { SavedChunk } from '../../src/scan/scan-checkpoints.js';

const chunk = (port: number): SavedChunk => ({
  open: [{ port, state: 'open', service: null, banner: `hello ${port}` }],
  filtered: [{ port: port + 1, state: 'filtered', service: null, banner: null }],
});

describe('LmdbCheckpoints', () => {
  let dir: string;
  let opened: LmdbCheckpoints[];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'selfscan-checkpoints-'));
    opened = [];
  });
  afterEach(async () => {
    for (const checkpoints of opened) await checkpoints.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const open = async (): Promise<LmdbCheckpoints> => {
    const checkpoints = await LmdbCheckpoints.open(dir);
    opened.push(checkpoints);
    return checkpoints;
  };

  it('keeps each scan its chunks by index, across a reopen', async () => {
    const first = await open();
    await first.save('scan-a', 0, chunk(100));
    await first.save('scan-a', 12, chunk(12_300));
    await first.save('scan-a', 63, chunk(65_000));
    await first.save('scan-ab', 5, chunk(5_200)); // an id that the first one prefixes
    await first.close();
    opened = [];
    const second = await open();
    expect(await second.load('scan-a')).toEqual(
      new Map([
        [0, chunk(100)],
        [12, chunk(12_300)],
        [63, chunk(65_000)],
      ]),
    );
    expect(await second.load('scan-ab')).toEqual(new Map([[5, chunk(5_200)]]));
    expect(await second.load('scan-c')).toEqual(new Map());
  });

  it('forgets one scan, or every scan but some', async () => {
    const checkpoints = await open();
    for (const scanId of ['a', 'b', 'c', 'd']) await checkpoints.save(scanId, 1, chunk(1));
    await checkpoints.forget('a');
    expect((await checkpoints.load('a')).size).toBe(0);
    await checkpoints.keepOnly(new Set(['b', 'd']));
    expect(await Promise.all(['a', 'b', 'c', 'd'].map(async (scanId) => (await checkpoints.load(scanId)).size))).toEqual([0, 1, 0, 1]);
  });
});
