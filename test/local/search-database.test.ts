/**
 * The local search database (lib/local/search-database.ts): on disk, as `npm start` runs it, it
 * keeps as many pages in memory as Aurora would (LOCAL_SEARCH_CACHE), not PGlite's 128 MB, or a
 * search of a large index reads its pages again through WebAssembly's file system on every call.
 * In memory (a test's database) it keeps a small one: PostgreSQL zeroes its cache at every start.
 * A closed one in memory is emptied and serves the next start in the process, unless its schema changed.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { IN_MEMORY_SEARCH_CACHE, LOCAL_SEARCH_CACHE, startLocalSearchDatabase } from '#lib/local/search-database';

it('a database on disk has the page cache Aurora would give it; one in memory a small one', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'search-database-'));
  const onDisk = await startLocalSearchDatabase(join(dir, 'search'));
  const inMemory = await startLocalSearchDatabase();
  try {
    expect(await onDisk.execute('SHOW shared_buffers', [])).toEqual([{ shared_buffers: LOCAL_SEARCH_CACHE }]);
    expect(await inMemory.execute('SHOW shared_buffers', [])).toEqual([{ shared_buffers: IN_MEMORY_SEARCH_CACHE }]);
  } finally {
    await onDisk.close();
    await inMemory.close();
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);

it('a database in memory, closed, serves the next start emptied, as the snapshot held it; one whose schema changed does not', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'search-database-'));
  // A snapshot of this test's own: databases parked by other files of this process start from another.
  const snapshot = join(dir, 'snapshot.pgdata');
  await copyFile(process.env.SEARCH_SNAPSHOT!, snapshot);
  const open = [] as Awaited<ReturnType<typeof startLocalSearchDatabase>>[];
  const start = async () => {
    const db = await startLocalSearchDatabase(undefined, snapshot);
    open.push(db);
    return db;
  };
  try {
    const first = await start();
    await first.execute("INSERT INTO search_reindex (name, items) VALUES ('committed', 1)", []);
    await first.execute('BEGIN', []);
    await first.execute("INSERT INTO search_reindex (name, items) VALUES ('in a transaction left open', 2)", []);
    await first.execute("SET work_mem = '1MB'", []);
    await first.close();

    const second = await start();
    expect(second.threadId).toBe(first.threadId);
    expect(await second.execute('SELECT name FROM search_reindex', [])).toEqual([]);
    expect(await second.execute('SHOW work_mem', [])).toEqual([{ work_mem: '4MB' }]);
    expect(await second.execute('SELECT count(*)::int AS n FROM search_schema_version', [])).not.toEqual([{ n: 0 }]);
    await second.execute('CREATE TABLE left_behind (x int)', []);
    await second.close();

    const third = await start();
    expect(third.threadId).not.toBe(second.threadId);
    expect(await third.execute("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'left_behind'", [])).toEqual([{ n: 0 }]);
    await third.close();
    // Closed outside any transaction, with nothing changed: reused too. A closed one takes no more statements.
    expect((await start()).threadId).toBe(third.threadId);
    await expect(third.execute('SELECT 1', [])).rejects.toThrow('closed');
  } finally {
    for (const db of open) await db.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
