/**
 * The local search database (lib/local/search-database.ts): on disk, as `npm start` runs it, it
 * keeps as many pages in memory as Aurora would (LOCAL_SEARCH_CACHE), not PGlite's 128 MB, or a
 * search of a large index reads its pages again through WebAssembly's file system on every call.
 * In memory (a test's database) it keeps a small one: PostgreSQL zeroes its cache at every start.
 */
import { mkdtemp, rm } from 'node:fs/promises';
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
