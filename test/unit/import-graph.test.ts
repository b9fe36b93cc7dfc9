// The house rules of src/, read from its imports: no file imports itself
// round a circle, no folder does (a subfolder never imports its parent
// back), and the adapter folders of a backend are imported only by the
// composition roots in roles/, so every other folder sees ports alone.
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { cycles, importGraphs } from '../helpers/import-graph.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
/** One folder per backend: lmdb (the single process's data dir), memory (its queue and bus), redis (Redis and BullMQ). */
const ADAPTER_FOLDERS = ['lmdb', 'memory', 'redis'];
const COMPOSITION_ROOTS = new Set(['roles']);

describe('the import graph of src/', () => {
  const { files, folders } = importGraphs(SRC);

  it('reads the tree (every folder of the code map is in it)', () => {
    expect(files.size).toBeGreaterThan(150);
    for (const folder of ['scan', 'webhook', 'limits/rate', 'http', 'roles', ...ADAPTER_FOLDERS]) expect(folders.has(folder)).toBe(true);
  });

  it('has no circle of files', () => {
    expect(cycles(files)).toEqual([]);
  });

  it('has no circle of folders, nor a subfolder importing its parent', () => {
    expect(cycles(folders)).toEqual([]);
  });

  it('lets only the composition roots import an adapter folder', () => {
    const importers = [...folders].flatMap(([from, to]) =>
      [...to].filter((folder) => ADAPTER_FOLDERS.includes(folder)).map((folder) => `${from} -> ${folder}`),
    );
    const allowed = (edge: string): boolean => COMPOSITION_ROOTS.has(edge.split(' -> ')[0]!);
    expect(importers.filter((edge) => !allowed(edge))).toEqual([]);
    expect(importers.length).toBeGreaterThan(0);
  });
});

describe('cycles', () => {
  it('finds a circle, a self-import and nothing in a chain', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set(['d'])],
      ['e', new Set(['a'])],
    ]);
    expect(cycles(graph)).toEqual([['d'], ['a', 'b', 'c']]);
    expect(cycles(new Map([['x', new Set(['y'])]]))).toEqual([]);
  });
});
