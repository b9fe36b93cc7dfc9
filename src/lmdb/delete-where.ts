// Deletes the entries of an lmdb database that a test picks, reading and
// deleting in one write transaction, so an entry rewritten in between is
// judged by what it is now: the expiry sweeps of results and fingerprints.
import type { RootDatabase } from 'lmdb';

/** Deletes every entry of `db` whose value `doomed` picks; how many. */
export function deleteWhere<V>(db: RootDatabase<V, string>, doomed: (value: V) => boolean): Promise<number> {
  return db.transaction(() => {
    const keys: string[] = [];
    for (const { key, value } of db.getRange()) if (doomed(value)) keys.push(key);
    for (const key of keys) db.removeSync(key);
    return keys.length;
  });
}
