/**
 * The search index's SQL on PGlite, without the service (functions/core/search/): the two folds
 * agree on one corpus, the migrations are idempotent, writes are guarded by feed position, a
 * tombstone is never brought back, a folder's subtree follows it, and the local database refuses
 * what the RDS Data API refuses.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, setSearchDatabase } from '#core/search/database';
import { searchFold } from '#core/search/fold';
import { migrate } from '#core/search/migrate';
import { parseQuery } from '#core/search/query';
import { DROP_BATCH, dropRepository, type IndexedItem, removeItem, searchItems, upsertItem } from '#core/search/search-index';
import { runAsFunction } from '#lib/local/permissions';
import { type LocalSearchDatabase, startLocalSearch } from '#lib/local/search-database';

let db: LocalSearchDatabase;
beforeAll(async () => {
  db = startLocalSearch();
  await db.execute('SELECT 1', []);
}, 120_000);
afterAll(async () => {
  await db?.close();
});
/** Statements as a function granted the search database runs them. */
const asWorker = <T>(work: () => Promise<T>) => runAsFunction({ name: 'Worker', dynamodb: [], search: true }, work);

const CORPUS = [
  'Straße',
  'STRASSE',
  'Café',
  'ＡＢＣ ｶﾀｶﾅ',
  'ﬁle ﬀ',
  'ΟΔΟΣ οδος ὈΔΌΣ',
  'İstanbul',
  'Ǆemal',
  'naïve façade',
  'Ångström',
  'Œuvre',
  'résumé',
  'ﾊﾝｶｸ',
  '①②',
  'Ⅻ',
  'ﬃ',
  'Ｒｅｐｏｒｔ－２０２４',
  'Ⅸ',
  'Æsir Øre Łódź Þór Đorđe ħ ı ŋ ŧ',
];

describe('folding', () => {
  it('the SQL fold agrees with the JavaScript fold on the corpus', async () => {
    const rows = await db.execute('SELECT t, search_fold(t) AS folded FROM jsonb_array_elements_text($1::jsonb) AS t', [
      JSON.stringify(CORPUS),
    ]);
    const disagreements = rows
      .filter((row) => row.folded !== searchFold(row.t as string))
      .map((row) => [row.t, row.folded, searchFold(row.t as string)]);
    expect(disagreements).toEqual([]);
  });
});

describe('migrations', () => {
  it('are recorded, and running them again changes nothing', async () => {
    expect(await migrate((sql, params = []) => db.execute(sql, params))).toEqual([]);
    const versions = await db.execute('SELECT version FROM search_schema_version ORDER BY version', []);
    expect(versions.map((row) => row.version)).toEqual([1, 2, 3]);
  });
});

const item = (fields: Partial<IndexedItem> & { id: string }): IndexedItem => ({
  repositoryId: 'r1',
  kind: 'document',
  folderId: 'root1',
  name: fields.id,
  contentType: 'text/plain',
  size: 1,
  version: 1,
  updatedAt: '2026-01-01T00:00:00.000Z',
  trashed: false,
  content: '',
  contentVersion: 1,
  ...fields,
});
const find = (q: string, extra: { folderId?: string } = {}) =>
  asWorker(() => searchItems({ query: parseQuery(q), repositoryIds: ['r1'], offset: 0, limit: 50, ...extra })).then((hits) =>
    hits.map((hit) => hit.name).sort(),
  );

describe('order across pages', () => {
  it('name hits first, then content-only hits by rank; each page is its slice of the whole order', async () => {
    await asWorker(async () => {
      for (const [i, updatedAt] of ['2026-01-03', '2026-01-01', '2026-01-02'].entries()) {
        await upsertItem(item({ id: `qn${i}`, name: `quince name ${i}`, updatedAt: `${updatedAt}T00:00:00.000Z` }), 1);
      }
      // More occurrences rank higher: qc3 (three) before qc2 (two) before qc1 (one).
      for (const times of [1, 2, 3]) {
        await upsertItem(item({ id: `qc${times}`, name: `plain ${times}`, content: `${'quince pie. '.repeat(times)}and more words` }), 1);
      }
    });
    const page = (offset: number, limit: number) =>
      asWorker(() => searchItems({ query: parseQuery('quince'), repositoryIds: ['r1'], offset, limit })).then((hits) =>
        hits.map((hit) => hit.name),
      );
    const whole = await page(0, 50);
    expect(whole).toEqual(['quince name 0', 'quince name 2', 'quince name 1', 'plain 3', 'plain 2', 'plain 1']);
    for (const limit of [1, 2, 4]) {
      const pages: string[] = [];
      for (let offset = 0; offset < whole.length + limit; offset += limit) pages.push(...(await page(offset, limit)));
      expect(pages, `pages of ${limit}`).toEqual(whole);
    }
  });
});

describe('text PostgreSQL cannot hold', () => {
  it('a NUL in the content (a file of bytes, an inline text) is indexed as a space', async () => {
    await asWorker(() => upsertItem(item({ id: 'nul1', name: 'binaryish', content: 'alpha\u0000omega' }), 1));
    expect(await find('omega')).toEqual(['binaryish']);
  });

  it('1 MiB of control characters (6 bytes each in the request) is indexed within the Data API request limit, as spaces', async () => {
    const content = `${'\u0001'.repeat(1024 * 1024 - 12)} zanzibarite`;
    await asWorker(() => upsertItem(item({ id: 'ctl1', name: 'control-heavy', content }), 1));
    expect(await find('zanzibarite')).toEqual(['control-heavy']);
  });
});

describe('writes guarded by feed position', () => {
  it('an older change never overwrites a newer one', async () => {
    await asWorker(() => upsertItem(item({ id: 'g1', name: 'guard new' }), 5));
    await asWorker(() => upsertItem(item({ id: 'g1', name: 'guard old' }), 4));
    expect(await find('guard')).toEqual(['guard new']);
  });

  it('a late upsert never brings a purged item back', async () => {
    await asWorker(() => upsertItem(item({ id: 'p1', name: 'purged thing' }), 1));
    await asWorker(() => removeItem({ id: 'p1', repositoryId: 'r1', kind: 'document' }, 3));
    await asWorker(() => upsertItem(item({ id: 'p1', name: 'purged thing' }), 2));
    expect(await find('purged')).toEqual([]);
  });

  it('a purged folder takes its subtree; a moved folder takes it along in one row', async () => {
    await asWorker(async () => {
      await upsertItem(item({ id: 'fa', kind: 'folder', name: 'fa' }), 1);
      await upsertItem(item({ id: 'fb', kind: 'folder', name: 'fb' }), 1);
      await upsertItem(item({ id: 'fc', kind: 'folder', folderId: 'fa', name: 'fc' }), 1);
      await upsertItem(item({ id: 'd1', folderId: 'fc', name: 'hazel' }), 1);
    });
    expect(await find('hazel', { folderId: 'fa' })).toEqual(['hazel']);
    await asWorker(() => upsertItem(item({ id: 'fc', kind: 'folder', folderId: 'fb', name: 'fc' }), 2));
    expect(await find('hazel', { folderId: 'fa' })).toEqual([]);
    expect(await find('hazel', { folderId: 'fb' })).toEqual(['hazel']);
    await asWorker(() => removeItem({ id: 'fb', repositoryId: 'r1', kind: 'folder' }, 3));
    expect(await find('hazel')).toEqual([]);
    // An older change of the document cannot bring it back either.
    await asWorker(() => upsertItem(item({ id: 'd1', folderId: 'fc', name: 'hazel' }), 2));
    expect(await find('hazel')).toEqual([]);
  });
});

describe('a deleted repository', () => {
  const rowsOf = async (repositoryId: string) =>
    (await db.execute('SELECT id FROM search_items WHERE repository_id = $1 ORDER BY id', [repositoryId])).map((row) => row.id);

  it('loses its rows a batch at a time, tombstones too; other repositories keep theirs; none of its items comes back', async () => {
    const count = DROP_BATCH + 3;
    await db.execute(
      `INSERT INTO search_items (id, repository_id, kind, folder_id, name, seq)
       SELECT 'x' || n, 'gone', 'document', 'root-gone', 'x' || n, 1 FROM generate_series(1, $1::int) AS n`,
      [count],
    );
    await asWorker(async () => {
      await removeItem({ id: 'x1', repositoryId: 'gone', kind: 'document' }, 2);
      await upsertItem(item({ id: 'kept', repositoryId: 'stays', name: 'kept' }), 1);
    });
    expect(await asWorker(() => dropRepository('gone'))).toBe(DROP_BATCH);
    expect((await rowsOf('gone')).length).toBe(3);
    expect(await asWorker(() => dropRepository('gone'))).toBe(3);
    expect(await asWorker(() => dropRepository('gone'))).toBe(0);
    expect(await rowsOf('gone')).toEqual([]);
    expect(await rowsOf('stays')).toEqual(['kept']);
    // A retried change, a rebuild that read an item before its purge: neither a row nor a tombstone comes back.
    await asWorker(async () => {
      await upsertItem(item({ id: 'x2', repositoryId: 'gone', name: 'x2' }), Number.MAX_SAFE_INTEGER);
      await removeItem({ id: 'x3', repositoryId: 'gone', kind: 'document' }, Number.MAX_SAFE_INTEGER);
    });
    expect(await rowsOf('gone')).toEqual([]);
  });
});

describe('what the Data API refuses, refused locally', () => {
  it('array parameters', async () => {
    await expect(db.execute('SELECT $1::text[]', [['a'] as unknown as string])).rejects.toMatchObject({ name: 'BadRequestException' });
  });

  it('a request over 4 MiB, its JSON counted as the SDK sends it', async () => {
    await expect(asWorker(() => db.execute('SELECT length($1)', ['x'.repeat(4 * 1024 * 1024)]))).rejects.toMatchObject({
      name: 'BadRequestException',
    });
    // 800,000 characters, but 4.8 MB once each is escaped in JSON.
    await expect(asWorker(() => db.execute('SELECT length($1)', ['\u0001'.repeat(800_000)]))).rejects.toMatchObject({
      name: 'BadRequestException',
    });
    expect(await asWorker(() => db.execute('SELECT length($1) AS n', ['x'.repeat(3 * 1024 * 1024)]))).toEqual([{ n: 3 * 1024 * 1024 }]);
  });

  it('a response over 1 MiB', async () => {
    await expect(db.execute("SELECT repeat('x', 60000) FROM generate_series(1, 20)", [])).rejects.toMatchObject({
      name: 'BadRequestException',
    });
  });

  it('a row over 64 KB', async () => {
    await expect(db.execute("SELECT repeat('x', 70000)", [])).rejects.toMatchObject({ name: 'BadRequestException' });
  });

  it('a function without the grant', async () => {
    await expect(runAsFunction({ name: 'GetDocument', dynamodb: [] }, () => db.execute('SELECT 1', []))).rejects.toMatchObject({
      name: 'AccessDeniedException',
    });
  });

  it('while the cluster resumes: retried, then 503 with Retry-After', async () => {
    db.resumeFor(600);
    const rows = await execute('SELECT 1 AS one');
    expect(rows).toEqual([{ one: 1 }]);
    db.resumeFor(60_000);
    await expect(execute('SELECT 1')).rejects.toMatchObject({ status: 503, options: { headers: { 'Retry-After': '15' } } });
    db.resumeFor(0);
  }, 30_000);
});

afterAll(() => setSearchDatabase(undefined));
