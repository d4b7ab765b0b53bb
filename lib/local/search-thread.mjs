/**
 * PGlite in a thread of its own (lib/local/search-database.ts): PostgreSQL in WebAssembly runs
 * synchronously while it starts and while it answers, and would otherwise stall every request
 * the local gateway is serving. Plain JavaScript, so that the thread loads it without a TypeScript
 * loader. Messages in: `{ id, sql, params }` and `{ id, close: true }`; out: `{ id, rows }` or
 * `{ id, error: { name, message } }`; `{ ready: true }` once open, or `{ failed }`.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';

/**
 * V8 recompiles a WebAssembly function with its optimising compiler once it has done a budget of
 * work (dynamic tiering). PostgreSQL's start runs thousands of functions a little, and at the
 * default budget many were optimised for nothing. With a budget 50 times the default, measured
 * here: a test file's process (a service that indexed ten documents and searched) 5.17 → 4.77
 * CPU-s, the median of five; a heavier load (2,000 rows indexed, 500 searches) 8.3 → 7.7 CPU-s,
 * as what is truly hot is still optimised. Set before PGlite instantiates PostgreSQL, it holds for
 * what the process instantiates after it (hash-wasm's SHA-256 hashes as fast: it is hot at once).
 */
setFlagsFromString('--wasm-tiering-budget=90000000');

let db;
try {
  // From a snapshot when one is given (an already migrated database: ./search-database.ts), in
  // memory or in a folder that holds no database yet.
  const fresh = !workerData.dataDir || !existsSync(`${workerData.dataDir}/PG_VERSION`);
  const snapshot = fresh && workerData.snapshot ? new Blob([await readFile(workerData.snapshot)]) : undefined;
  db = await PGlite.create({
    ...(workerData.dataDir ? { dataDir: workerData.dataDir } : {}),
    ...(snapshot ? { loadDataDir: snapshot } : {}),
    ...(workerData.sharedBuffers
      ? { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${workerData.sharedBuffers}`] }
      : {}),
    extensions: { unaccent, pg_trgm },
  });
  parentPort.postMessage({ ready: true });
} catch (error) {
  parentPort.postMessage({ failed: String(error?.stack ?? error) });
}

// One statement at a time, in the order they came.
let queue = Promise.resolve();
parentPort.on('message', (message) => {
  queue = queue.then(async () => {
    if (message.dump) {
      const file = await db.dumpDataDir('none');
      parentPort.postMessage({ id: message.id, rows: [], dump: new Uint8Array(await file.arrayBuffer()) });
      return;
    }
    if (message.close) {
      await db?.close();
      parentPort.postMessage({ id: message.id, rows: [] });
      return;
    }
    try {
      const result = await db.query(message.sql, message.params);
      parentPort.postMessage({ id: message.id, rows: result.rows });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } });
    }
  });
});
