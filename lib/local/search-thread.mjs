/**
 * PGlite in a thread of its own (lib/local/search-database.ts): PostgreSQL in WebAssembly runs
 * synchronously while it starts and while it answers, and would otherwise stall every request
 * the local gateway is serving. Plain JavaScript, so that the thread loads it without a TypeScript
 * loader. Messages in: `{ id, sql, params }`, `{ id, reset: true }` and `{ id, close: true }`; out: `{ id, rows }` or
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
/** The schema as the snapshot held it: a database whose schema changed since is not reused. */
let pristine;
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
  if (workerData.reusable) pristine = await schemaFingerprint();
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
    if (message.reset) {
      try {
        await reset();
        parentPort.postMessage({ id: message.id, rows: [] });
      } catch (error) {
        parentPort.postMessage({ id: message.id, error: { name: 'ResetFailed', message: String(error?.message ?? error) } });
      }
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

/**
 * Empties the database for the next service of this process (./search-database.ts parks it): what
 * a transaction left is rolled back, settings return to their defaults, and every table but the
 * migrations' record is truncated. Refused when the schema is no longer the snapshot's (a test
 * that changed it): the database is then closed, not reused.
 */
async function reset() {
  await db.query('ROLLBACK'); // outside a transaction: a warning, nothing else
  await db.query('RESET ALL');
  if ((await schemaFingerprint()) !== pristine) throw new Error('the schema changed since the snapshot');
  const { rows } = await db.query(
    "SELECT string_agg(format('%I', tablename), ', ') AS tables FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'search_schema_version'",
  );
  if (rows[0].tables) await db.query(`TRUNCATE ${rows[0].tables} RESTART IDENTITY`);
}

/** Relations, columns, functions, text search configurations, extensions and migrations of the database. */
async function schemaFingerprint() {
  const { rows } = await db.query(`SELECT md5(concat_ws('|',
    (SELECT string_agg(format('%s:%s:%s', c.relname, c.relkind, pg_get_indexdef(c.oid)), ',' ORDER BY c.relname)
       FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace),
    (SELECT string_agg(format('%s.%s:%s:%s', c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attstorage), ',' ORDER BY c.relname, a.attnum)
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped),
    (SELECT string_agg(format('%s:%s', p.oid::regprocedure, md5(p.prosrc)), ',' ORDER BY p.oid::regprocedure::text)
       FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace),
    (SELECT string_agg(cfgname, ',' ORDER BY cfgname) FROM pg_ts_config WHERE cfgnamespace = 'public'::regnamespace),
    (SELECT string_agg(extname || extversion, ',' ORDER BY extname) FROM pg_extension),
    (SELECT string_agg(version::text, ',' ORDER BY version) FROM search_schema_version)
  )) AS fingerprint`);
  return rows[0].fingerprint;
}
