// Opens an lmdb environment whose writes are on disk when their promise
// resolves: every durable store of the service uses it.
import fs from 'node:fs';
import path from 'node:path';

import { open, type RootDatabase } from 'lmdb';

/** Opens (creating it if needed) `<dataDir>/<fileName>`. */
export async function openDurableLmdb<V>(dataDir: string, fileName: string): Promise<RootDatabase<V, string>> {
  await fs.promises.mkdir(dataDir, { recursive: true });
  return open<V, string>({
    path: path.join(dataDir, fileName),
    // lmdb-js defaults to overlappingSync on Linux and macOS: a write's
    // promise then resolves at commit, before the fsync, so an OS crash or
    // power loss after `await put()` could still lose the write. Without it
    // every commit is synced before its promise resolves. noSync stays off
    // (its default) for the same reason.
    overlappingSync: false,
    // Keeps msgpack record structures in the database, so reads reuse them
    // instead of rebuilding each record's shape.
    sharedStructuresKey: Symbol.for('selfscan:structures'),
  });
}
