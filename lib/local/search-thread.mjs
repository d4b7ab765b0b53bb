/**
 * PGlite in a thread of its own (lib/local/search-database.ts): PostgreSQL in WebAssembly runs
 * synchronously while it starts and while it answers, and would otherwise stall every request
 * the local gateway is serving. Plain JavaScript, so that the thread loads it without a TypeScript
 * loader. Messages in: `{ id, sql, params }` and `{ id, close: true }`; out: `{ id, rows }` or
 * `{ id, error: { name, message } }`; `{ ready: true }` once open, or `{ failed }`.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';

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
