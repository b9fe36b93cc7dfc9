// Child of the lmdb-store crash test: stores the record given as JSON, says
// so, then dies by SIGKILL without closing the store.

import { openLmdbStore } from '../../../src/lmdb/lmdb-store.js';
import type { ScanRecord } from '../../../src/model/scan-record.js';

const [dataDir, json] = process.argv.slice(2);
if (dataDir === undefined || json === undefined) throw new Error('usage: store-child.ts <dataDir> <record json>');

const store = await openLmdbStore(dataDir);
await store.put(JSON.parse(json) as ScanRecord);
process.stdout.write('stored\n', () => process.kill(process.pid, 'SIGKILL'));
