/**
 * The search database on this machine: PGlite (PostgreSQL compiled to WebAssembly), on disk
 * under the data folder, behind the same `execute` port as the RDS Data API deployed
 * (functions/core/search/database.ts). It refuses what the Data API refuses ("Amazon RDS Data
 * API limitations", Aurora user guide), so a local test fails where AWS would:
 * - array parameters (the Data API's SqlParameter has no array value);
 * - a request over 4 MiB;
 * - a response over 1 MiB, or a row over 64 KB;
 * - a function whose role is not granted the Data API (`search` in functions/routes.ts), as
 *   IAM would refuse `rds-data:ExecuteStatement` (./permissions.ts holds who is being served).
 * `resumeFor(ms)` makes it answer `DatabaseResumingException` for a while, as an auto-paused
 * Aurora Serverless v2 cluster does while it wakes.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { RESUMING, type Row, type SqlPort, type SqlValue, setSearchDatabase } from '#core/search/database';
import { migrate } from '#core/search/migrate';
import { servedFunction } from './permissions';

export const DATA_API_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DATA_API_MAX_ROW_BYTES = 64 * 1024;
/**
 * The largest HTTP request the Data API takes, headers and JSON included ("the maximum size of
 * the HTTP request submitted through the Data API is 4 MiB", BatchExecuteStatement, RDS Data API
 * reference); over it, the request is refused.
 */
export const DATA_API_MAX_REQUEST_BYTES = 4 * 1024 * 1024;
/** What a request carries besides its statement and parameters: headers, ARNs, the JSON around them. */
const REQUEST_OVERHEAD_BYTES = 2 * 1024;

/** An error as the Data API's client throws it (its `name` is what callers look at). */
export class DataApiError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

export interface LocalSearchDatabase extends SqlPort {
  /** Answer DatabaseResumingException for the next `ms` milliseconds. */
  resumeFor(ms: number): void;
  close(): Promise<void>;
}

/**
 * A migrated, empty database to start from (SEARCH_SNAPSHOT: a file `writeSearchSnapshot` made):
 * a test run makes one (test/global-setup.ts), and each start in memory, or a service's start in a
 * folder that holds no database yet (a child `npm start` of a test), loads it instead of creating
 * a database and migrating it (on disk, measured on a slow day: 8.4 → 4.1 s of CPU). A database
 * opened on disk by itself (`startLocalSearchDatabase(dir)`) starts empty, as on a new cluster.
 */
const snapshotFile = () => process.env.SEARCH_SNAPSHOT || undefined;

/**
 * PostgreSQL's page cache for a database on disk. PGlite's own default (128 MB) is a fraction of
 * what Aurora keeps: its buffer cache is 50–75 % of the instance's memory ("Aurora PostgreSQL
 * shared_buffers", AWS knowledge center), about 2 GiB an ACU, so 0.5–0.75 GiB at the stack's
 * 0.5 ACU floor. Past 128 MB, a search of a phrase of two common words in 100,000 documents
 * read its pages again on every call through WebAssembly's file system: 355 → 215 ms. Costs
 * ~250 MB of memory at start. (In memory, for tests, the pages are in memory already.)
 */
export const LOCAL_SEARCH_CACHE = '384MB';

/**
 * The page cache on disk: SEARCH_PAGE_CACHE, else LOCAL_SEARCH_CACHE. PostgreSQL zeroes it at
 * every start (384 MB: 1.6 s of CPU, 16 MB: 0.4 s on a slow day); a test that starts `npm start`
 * again and again on a few rows asks for a small one (test/support/child-service.ts).
 */
const onDiskCache = () => process.env.SEARCH_PAGE_CACHE || LOCAL_SEARCH_CACHE;

/**
 * The page cache of a database in memory (a test's: its pages are in memory already, and its
 * index holds a few hundred rows). PostgreSQL zeroes its cache when it starts: PGlite's default
 * 128 MB was a sixth of each start's CPU, and tests start one for every service.
 */
export const IN_MEMORY_SEARCH_CACHE = '16MB';

/**
 * Databases in memory that a closed service left, emptied, for the next one this process starts
 * (a test file starts a service, and the test files of a worker share its process). Loading the
 * snapshot and starting PostgreSQL was ~1 s of CPU on a quiet machine and 2-3 s in a full test
 * run, most of it WebAssembly's memory and file system filled anew; an emptied one is ready at
 * once. Only one whose schema is still the snapshot's is kept (`reset` in ./search-thread.mjs).
 */
const parked: { thread: Worker; snapshot: string }[] = [];
/** Parked at most: each holds ~200 MB. A file seldom runs two services at once. */
const MAX_PARKED = 2;

/**
 * Opens (or creates) the database in `dir`, in a thread of its own (./search-thread.mjs); in memory
 * without one. A new one starts from `snapshot` when given: by default the run's in memory, none on disk.
 */
export async function startLocalSearchDatabase(
  dir?: string,
  snapshot: string | undefined = dir ? undefined : snapshotFile(),
): Promise<LocalSearchDatabase & { dump(): Promise<Uint8Array>; threadId: number }> {
  // Reused only in memory from a snapshot: what a fresh one would hold is known, and empty.
  const reusable = dir === undefined && snapshot !== undefined ? snapshot : undefined;
  const thread = (reusable && takeParked(reusable)) || (await openThread(dir, snapshot, reusable !== undefined));
  let dumped: ((bytes: Uint8Array) => void) | undefined;
  const pending = new Map<number, { resolve: (rows: Row[]) => void; reject: (error: Error) => void }>();
  let nextId = 0;
  const answer = (message: { id?: number; rows?: Row[]; dump?: Uint8Array; error?: { name: string; message: string } }) => {
    if (message.dump) dumped?.(message.dump);
    if (message.id === undefined) return;
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiting?.reject(new DataApiError(message.error.name, message.error.message));
    else waiting?.resolve(message.rows ?? []);
  };
  // A thread that dies (PostgreSQL aborting) fails what waits on it.
  const died = (error: Error) => {
    for (const waiting of pending.values()) waiting.reject(error);
    pending.clear();
  };
  const exited = () => died(new Error('The search database thread exited'));
  thread.on('message', answer);
  thread.on('error', died);
  thread.on('exit', exited);
  const send = (message: { sql?: string; params?: readonly SqlValue[]; close?: boolean; dump?: boolean; reset?: boolean }) =>
    new Promise<Row[]>((resolve, reject) => {
      // Once closed, the thread may serve another service (parked, then taken): nothing more goes to it.
      if (closing && !message.reset && !message.close) return reject(new Error('The search database is closed'));
      const id = nextId++;
      pending.set(id, { resolve, reject });
      thread.postMessage({ id, ...message });
    });
  let resumingUntil = 0;
  let closing: Promise<void> | undefined;
  return {
    threadId: thread.threadId,
    async execute(sql: string, params: readonly SqlValue[]): Promise<Row[]> {
      const grant = servedFunction();
      if (grant && !grant.search) {
        throw new DataApiError(
          'AccessDeniedException',
          `${grant.name} is not authorized to perform: rds-data:ExecuteStatement on the search cluster`,
        );
      }
      for (const value of params) {
        if (value !== null && typeof value === 'object')
          throw new DataApiError('BadRequestException', 'Array parameters are not supported by the Data API');
      }
      checkRequestSize(sql, params);
      if (Date.now() < resumingUntil) throw new DataApiError(RESUMING, 'The database is resuming after being auto-paused.');
      const rows = await send({ sql, params });
      checkSize(rows);
      return rows;
    },
    resumeFor(ms) {
      resumingUntil = Date.now() + ms;
    },
    async dump() {
      const bytes = new Promise<Uint8Array>((resolve) => {
        dumped = resolve;
      });
      await send({ dump: true });
      return bytes;
    },
    close() {
      closing ??= (async () => {
        const emptied =
          reusable &&
          parked.length < MAX_PARKED &&
          (await send({ reset: true }).then(
            () => true,
            () => false,
          ));
        if (emptied && parked.length < MAX_PARKED) {
          thread.off('message', answer);
          thread.off('error', died);
          thread.off('exit', exited);
          thread.unref(); // a parked thread does not keep the process alive
          parked.push({ thread, snapshot: reusable });
          return;
        }
        await send({ close: true }).catch(() => undefined);
        await thread.terminate();
      })();
      return closing;
    },
  };
}

function takeParked(snapshot: string): Worker | undefined {
  const index = parked.findLastIndex((entry) => entry.snapshot === snapshot);
  if (index < 0) return undefined;
  const thread = parked.splice(index, 1)[0]!.thread;
  thread.ref();
  return thread;
}

/** A new thread, once its database is open. */
async function openThread(dir: string | undefined, snapshot: string | undefined, reusable: boolean): Promise<Worker> {
  if (dir) await mkdir(dir, { recursive: true });
  const thread = new Worker(new URL('./search-thread.mjs', import.meta.url), {
    workerData: { dataDir: dir, snapshot, sharedBuffers: dir ? onDiskCache() : IN_MEMORY_SEARCH_CACHE, reusable },
  });
  thread.on('error', () => {}); // a service using it hears of it (`died` above); parked, it just goes
  // A thread that died is never parked: its entry is dropped.
  thread.once('exit', () => {
    const index = parked.findIndex((entry) => entry.thread === thread);
    if (index >= 0) parked.splice(index, 1);
  });
  await new Promise<void>((resolve, reject) => {
    const opened = (message: { ready?: boolean; failed?: string }) => {
      if (!message.ready && !message.failed) return;
      thread.off('message', opened);
      thread.off('error', reject);
      if (message.ready) resolve();
      else reject(new Error(`PGlite did not start: ${message.failed}`));
    };
    thread.on('message', opened);
    thread.once('error', reject);
  });
  return thread;
}

/**
 * The Data API's limit on a request: the statement and its parameters as the SDK sends them, in
 * JSON (a control character takes 6 bytes there, a quote 2).
 */
function checkRequestSize(sql: string, params: readonly SqlValue[]): void {
  let most = sql.length;
  for (const value of params) most += typeof value === 'string' ? value.length : 24;
  if (most * 6 + REQUEST_OVERHEAD_BYTES <= DATA_API_MAX_REQUEST_BYTES) return; // cannot be over it, however escaped
  const parameters = params.map((value, i) => ({ name: `p${i + 1}`, value: { stringValue: value } }));
  const bytes = Buffer.byteLength(JSON.stringify({ sql, parameters })) + REQUEST_OVERHEAD_BYTES;
  if (bytes > DATA_API_MAX_REQUEST_BYTES) {
    throw new DataApiError(
      'BadRequestException',
      `The request is ${bytes} bytes, over the Data API's limit of ${DATA_API_MAX_REQUEST_BYTES}`,
    );
  }
}

/** The Data API's size limits on what a statement answers. */
function checkSize(rows: readonly Row[]): void {
  let total = 0;
  for (const row of rows) {
    const bytes = Buffer.byteLength(JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? value.toString() : value)));
    if (bytes > DATA_API_MAX_ROW_BYTES) throw new DataApiError('BadRequestException', 'A row of the result is over 64 KB');
    total += bytes;
    if (total > DATA_API_MAX_RESPONSE_BYTES) throw new DataApiError('BadRequestException', 'Database response exceeded size limit');
  }
}

/**
 * Opens the local search database in the background, applies the migrations, and hands it to
 * the functions of this process at once: a statement waits until it is open (a few seconds), so
 * the rest of the service does not wait for it.
 */
export function startLocalSearch(dir?: string): LocalSearchDatabase {
  const opening = startLocalSearchDatabase(dir, snapshotFile());
  const ready = opening.then(async (db) => {
    await migrateWith(db);
    return db;
  });
  ready.catch(() => undefined);
  const local: LocalSearchDatabase = {
    execute: async (sql, params) => (await ready).execute(sql, params),
    resumeFor: (ms) => {
      ready.then(
        (db) => db.resumeFor(ms),
        () => undefined,
      );
    },
    close: async () => {
      setSearchDatabase(undefined);
      await (await opening.catch(() => undefined))?.close();
    },
  };
  setSearchDatabase(local);
  return local;
}

/**
 * Every database started from the snapshot copies it in: without the template databases (nothing
 * creates a database from them) it is 25 MB, not 40, and a start from it ~0.4 s of CPU less.
 */
const TRIM_SNAPSHOT = [
  "UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')",
  'DROP DATABASE template0',
  'DROP DATABASE template1',
  'CHECKPOINT',
];

/** Writes a migrated, empty in-memory database to `file`, for SEARCH_SNAPSHOT. */
export async function writeSearchSnapshot(file: string): Promise<void> {
  const db = await startLocalSearchDatabase();
  try {
    await migrateWith(db);
    for (const sql of TRIM_SNAPSHOT) await db.execute(sql, []);
    await writeFile(`${file}.partial`, await db.dump());
    await rename(`${file}.partial`, file);
  } finally {
    await db.close();
  }
}

/** The migrations, run on `db` outside any function's grants (the runtime's own set-up). */
const migrateWith = (db: SqlPort) => migrate((sql, params = []) => db.execute(sql, params));
