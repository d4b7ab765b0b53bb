/**
 * GET /search through the local service (docs/api.md: Search): every rule of the section, on the
 * worker's index of what the requests wrote (PGlite locally, fed from the table's stream).
 */
import { describe, expect, it } from 'vitest';
import { serviceMetrics } from '#core/metrics';
import { reindex } from '#core/search/reindex';
import { upsertItem } from '#core/search/search-index';
import { reindexFunction, workerFunction } from '#functions/routes';
import { indexItems } from '#functions/worker/indexer';
import { runAsFunction } from '#lib/local/permissions';
import { useService, withRoles } from '#test/support/fixture';
import { type Api, expectProblem, expectValidationError, newDocument, newFolder, newRepository, removeMember } from '#test/support/http';
import { pdfWithText } from '#test/support/pdf';

/** The service's log: its EMF lines (`metrics {...}`) among them. */
const logLines: string[] = [];
const ctx = useService({ log: (line) => logLines.push(line), printMetrics: true, seed: (svc) => withRoles(svc) });
const metricLines = () =>
  logLines
    .filter((line) => line.startsWith('metrics '))
    .map((line) => JSON.parse(line.slice('metrics '.length)) as Record<string, unknown>);

interface Hit {
  kind: string;
  id: string;
  name: string;
  matched: string;
  folderId: string;
  snippet?: { text: string; highlights: [number, number][] };
}

/** The hits of a search once the worker has indexed everything written so far. */
async function search(api: Api, params: Record<string, string>): Promise<{ items: Hit[]; nextToken?: string }> {
  await ctx.svc.worker.settled();
  const res = await api.get(`/search?${new URLSearchParams(params)}`);
  expect(res.status, res.text).toBe(200);
  return res.body as { items: Hit[]; nextToken?: string };
}
const names = async (api: Api, params: Record<string, string>) => (await search(api, params)).items.map((hit) => hit.name).sort();

describe('GET /search: matching', () => {
  it('finds a name by a word prefix, any part of 3 characters or more, and content by English stem', async () => {
    const repo = await newRepository(ctx.owner.api);
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'Report-2024.pdf', content: 'nothing here' });
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'notes.txt', content: 'The dog runs every morning.' });
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'other.txt', content: 'Nothing to see.' });
    const where = { repositoryId: repo.id };
    expect(await names(ctx.owner.api, { ...where, q: 'port' })).toEqual(['Report-2024.pdf']);
    expect(await names(ctx.owner.api, { ...where, q: 're' })).toEqual(['Report-2024.pdf']);
    expect(await names(ctx.owner.api, { ...where, q: 'running' })).toEqual(['notes.txt']);
    expect(await names(ctx.owner.api, { ...where, q: 'po' })).toEqual([]);
  });

  it('folds case, accents and width on both sides', async () => {
    const repo = await newRepository(ctx.owner.api);
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'Straße.txt', content: 'Un Café crème' });
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'abc.txt', content: '' });
    const where = { repositoryId: repo.id };
    expect(await names(ctx.owner.api, { ...where, q: 'strasse' })).toEqual(['Straße.txt']);
    expect(await names(ctx.owner.api, { ...where, q: 'CAFE' })).toEqual(['Straße.txt']);
    expect(await names(ctx.owner.api, { ...where, q: 'ＡＢＣ' })).toEqual(['abc.txt']);
  });

  it('phrases, exclusions and OR binding tighter than AND', async () => {
    const repo = await newRepository(ctx.owner.api);
    const api = ctx.owner.api;
    await newDocument(api, repo.rootFolderId, { name: 'one', content: 'plan alpha for the quarter' });
    await newDocument(api, repo.rootFolderId, { name: 'two', content: 'plan beta draft' });
    await newDocument(api, repo.rootFolderId, { name: 'three', content: 'beta without the other word' });
    await newDocument(api, repo.rootFolderId, { name: 'four', content: 'quarter alpha plan' });
    const where = { repositoryId: repo.id };
    expect(await names(api, { ...where, q: 'plan alpha OR beta' })).toEqual(['four', 'one', 'two']);
    expect(await names(api, { ...where, q: '"plan alpha"' })).toEqual(['one']);
    expect(await names(api, { ...where, q: 'plan -draft' })).toEqual(['four', 'one']);
    expect(await names(api, { ...where, q: 'plan -"quarter alpha"' })).toEqual(['one', 'two']);
  });

  it('a stop word matches only names', async () => {
    const repo = await newRepository(ctx.owner.api);
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'The plan', content: 'x' });
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'b', content: 'the the the' });
    expect(await names(ctx.owner.api, { repositoryId: repo.id, q: 'the' })).toEqual(['The plan']);
  });
});

describe('GET /search: hits', () => {
  it('ranks a name match above a content match, then newest first; snippets with UTF-16 highlights', async () => {
    const repo = await newRepository(ctx.owner.api);
    const api = ctx.owner.api;
    const inContent = await newDocument(api, repo.rootFolderId, {
      name: 'a.txt',
      content: `${'filler '.repeat(100)}a 😀 budget line ${'more '.repeat(100)}`,
    });
    const inName = await newDocument(api, repo.rootFolderId, { name: 'Budget.txt', content: 'nothing' });
    const { items } = await search(api, { repositoryId: repo.id, q: 'budget' });
    expect(items.map((hit) => hit.id)).toEqual([inName.id, inContent.id]);
    expect(items[0]).toMatchObject({ matched: 'name', kind: 'document', folderId: repo.rootFolderId });
    expect(items[0]!.snippet).toBeUndefined();
    const snippet = items[1]!.snippet!;
    expect(items[1]!.matched).toBe('content');
    expect(snippet.text.length).toBeLessThanOrEqual(300);
    expect(snippet.highlights.length).toBeGreaterThan(0);
    for (const [from, to] of snippet.highlights) expect(snippet.text.slice(from, to).toLowerCase()).toBe('budget');
  });

  it('folders are hits; root folders never; below a folder at any depth, not the folder itself', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api, { name: 'Zebra archive' });
    const top = await newFolder(api, repo.rootFolderId, 'zebra top');
    const deep = await newFolder(api, top.id, 'middle');
    await newDocument(api, deep.id, { name: 'zebra deep.txt', content: '' });
    await newDocument(api, repo.rootFolderId, { name: 'zebra outside.txt', content: '' });
    expect(await names(api, { repositoryId: repo.id, q: 'zebra' })).toEqual(['zebra deep.txt', 'zebra outside.txt', 'zebra top']);
    expect(await names(api, { folderId: top.id, q: 'zebra' })).toEqual(['zebra deep.txt']);
    expect(await names(api, { repositoryId: repo.id, q: 'zebra', kind: 'folder' })).toEqual(['zebra top']);
  });

  it('contentType: a type ignoring parameters, or a prefix ending in /', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    await newDocument(api, repo.rootFolderId, { name: 'kiwi.md', content: 'k', contentType: 'text/markdown; charset=utf-8' });
    await newDocument(api, repo.rootFolderId, { name: 'kiwi.json', content: '{}', contentType: 'application/json' });
    const where = { repositoryId: repo.id, q: 'kiwi' };
    expect(await names(api, { ...where, contentType: 'text/markdown' })).toEqual(['kiwi.md']);
    expect(await names(api, { ...where, contentType: 'application/' })).toEqual(['kiwi.json']);
  });

  it('pages with nextToken; an altered token or one of another query is 400', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    for (let i = 0; i < 5; i++) await newDocument(api, repo.rootFolderId, { name: `page item ${i}`, content: '' });
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await search(api, { repositoryId: repo.id, q: 'page', limit: '2', ...(token ? { nextToken: token } : {}) });
      seen.push(...page.items.map((hit) => hit.name));
      token = page.nextToken;
    } while (token);
    expect(seen.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `page item ${i}`));
    const first = await search(api, { repositoryId: repo.id, q: 'page', limit: '2' });
    const altered = `${first.nextToken!.slice(0, -2)}AA`;
    expectValidationError(
      await api.get(`/search?${new URLSearchParams({ repositoryId: repo.id, q: 'page', nextToken: altered })}`),
      'nextToken',
    );
    expectValidationError(
      await api.get(`/search?${new URLSearchParams({ repositoryId: repo.id, q: 'item', nextToken: first.nextToken! })}`),
      'nextToken',
    );
  });
});

describe('GET /search: what is not searched', () => {
  it('trashed items and what is below a trashed folder; back after a restore; gone after a purge', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    const folder = await newFolder(api, repo.rootFolderId, 'walnut folder');
    await newDocument(api, folder.id, { name: 'walnut inside', content: '' });
    const alone = await newDocument(api, repo.rootFolderId, { name: 'walnut alone', content: '' });
    const where = { repositoryId: repo.id, q: 'walnut' };
    expect(await names(api, where)).toEqual(['walnut alone', 'walnut folder', 'walnut inside']);
    expect((await api.delete(`/folder/${folder.id}?recursive=true`)).status).toBe(204);
    expect((await api.delete(`/document/${alone.id}`)).status).toBe(204);
    expect(await names(api, where)).toEqual([]);
    expect((await api.post(`/${repo.id}/trash/${folder.id}/restore`, {})).status).toBe(200);
    expect(await names(api, where)).toEqual(['walnut folder', 'walnut inside']);
    expect((await api.delete(`/${repo.id}/trash/${alone.id}`)).status).toBe(204);
    expect((await api.post(`/${repo.id}/trash/${alone.id}/restore`, {})).status).toBe(404);
    expect(await names(api, where)).toEqual(['walnut folder', 'walnut inside']);
  });

  it('a moved folder takes what is below it to the new place', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    const a = await newFolder(api, repo.rootFolderId, 'a');
    const b = await newFolder(api, repo.rootFolderId, 'b');
    const moving = await newFolder(api, a.id, 'moving');
    await newDocument(api, moving.id, { name: 'pecan.txt', content: '' });
    expect(await names(api, { folderId: a.id, q: 'pecan' })).toEqual(['pecan.txt']);
    expect((await api.put('/folder', { id: moving.id, parentId: b.id })).status).toBe(200);
    expect(await names(api, { folderId: a.id, q: 'pecan' })).toEqual([]);
    expect(await names(api, { folderId: b.id, q: 'pecan' })).toEqual(['pecan.txt']);
  });

  it("other users' repositories, and a removed member's, are never searched; their filters are 404", async () => {
    const repo = await newRepository(ctx.owner.api);
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'secret almond', content: '' });
    expect(await names(ctx.stranger.api, { q: 'almond' })).toEqual([]);
    expectProblem(await ctx.stranger.api.get(`/search?q=almond&repositoryId=${repo.id}`), 404);
    expectProblem(await ctx.stranger.api.get(`/search?q=almond&folderId=${repo.rootFolderId}`), 404);
    // The shared repository: the viewer finds it until removed.
    await newDocument(ctx.owner.api, ctx.repo.rootFolderId, { name: 'shared almond', content: '' });
    expect(await names(ctx.viewer.api, { q: 'almond' })).toEqual(['shared almond']);
    await removeMember(ctx.owner.api, ctx.repo.id, ctx.viewer.sub);
    expect(await names(ctx.viewer.api, { q: 'almond' })).toEqual([]);
  });
});

describe('GET /search: clean-up and lag', () => {
  const rowsOf = async (repositoryId: string) =>
    ctx.svc.search.execute('SELECT id, name, content, deleted FROM search_items WHERE repository_id = $1', [repositoryId]);

  it('a deleted repository’s rows are gone once the worker is done, and a late write of one of its items stays out', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    const folder = await newFolder(api, repo.rootFolderId, 'olive folder');
    const doc = await newDocument(api, folder.id, { name: 'olive grove.txt', content: 'olive oil' });
    await newDocument(api, ctx.repo.rootFolderId, { name: 'olive kept.txt', content: '' });
    expect(await names(api, { q: 'olive' })).toEqual(['olive folder', 'olive grove.txt', 'olive kept.txt']);
    expect((await rowsOf(repo.id)).length).toBeGreaterThan(0);

    expect((await api.delete(`/${repo.id}`)).status).toBe(204);
    expect(await names(api, { q: 'olive' })).toEqual(['olive kept.txt']);
    expect(await names(ctx.editor.api, { q: 'olive' })).toEqual(['olive kept.txt']);
    expect(await names(ctx.stranger.api, { q: 'olive' })).toEqual([]);
    await ctx.svc.worker.settled(30_000);
    expect(await rowsOf(repo.id)).toEqual([]);

    // A change of the repository's that arrives late (a retried batch, a rebuild that read the item before the purge).
    await runAsFunction(workerFunction, () =>
      upsertItem(
        {
          id: doc.id,
          repositoryId: repo.id,
          kind: 'document',
          folderId: folder.id,
          name: 'olive grove.txt',
          version: 9,
          updatedAt: new Date().toISOString(),
          trashed: false,
          content: 'olive oil',
          contentVersion: 9,
        },
        Number.MAX_SAFE_INTEGER,
      ),
    );
    expect(await rowsOf(repo.id)).toEqual([]);
  });

  it('a purged document keeps a tombstone without its name or content, which a late write does not undo', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    const doc = await newDocument(api, repo.rootFolderId, { name: 'fig.txt', content: 'fig jam' });
    expect(await names(api, { repositoryId: repo.id, q: 'fig' })).toEqual(['fig.txt']);
    expect((await api.delete(`/document/${doc.id}`)).status).toBe(204);
    expect((await api.delete(`/${repo.id}/trash/${doc.id}`)).status).toBe(204);
    await ctx.svc.worker.settled(30_000);
    expect(await rowsOf(repo.id)).toEqual([{ id: doc.id, name: '', content: '', deleted: true }]);
    const [{ seq }] = (await ctx.svc.search.execute('SELECT seq FROM search_items WHERE id = $1', [doc.id])) as [{ seq: number }];
    const late = { id: doc.id, repositoryId: repo.id, kind: 'document' as const, folderId: repo.rootFolderId, name: 'fig.txt' };
    const item = { ...late, version: 1, updatedAt: new Date().toISOString(), trashed: false, content: 'fig jam', contentVersion: 1 };
    await runAsFunction(workerFunction, () => upsertItem(item, Number(seq)));
    expect(await rowsOf(repo.id)).toEqual([{ id: doc.id, name: '', content: '', deleted: true }]);
  });

  it('the worker reports how long each change took to reach the index (SearchIndexLag, ms)', async () => {
    const before = metricLines().length;
    const repo = await newRepository(ctx.owner.api);
    await newDocument(ctx.owner.api, repo.rootFolderId, { name: 'lagging.txt', content: '' });
    await ctx.svc.worker.settled();
    const lags = metricLines()
      .slice(before)
      .flatMap((line) => [line[serviceMetrics.searchIndexLag.name] ?? []].flat()) as number[];
    expect(lags.length).toBeGreaterThan(0);
    for (const lag of lags) expect(lag).toSatisfy((ms: number) => Number.isFinite(ms) && ms >= 0 && ms < 60_000);
  });
});

describe('GET /search: bad queries are 400', () => {
  it.each([
    ['empty', ''],
    ['no word', '!!! ---'],
    ['only exclusions', '-draft -"old plan"'],
    ['too long', 'a'.repeat(257)],
  ])('%s', async (_, q) => {
    expectValidationError(await ctx.owner.api.get(`/search?${new URLSearchParams({ q })}`), 'q');
  });

  it('an unknown kind, a contentType with parameters', async () => {
    expectValidationError(await ctx.owner.api.get('/search?q=a&kind=file'), 'kind');
    expectValidationError(
      await ctx.owner.api.get(`/search?q=a&contentType=${encodeURIComponent('text/plain; charset=utf-8')}`),
      'contentType',
    );
  });
});

describe('GET /search: file text, renames, content changes, the rebuild', () => {
  const putContent = (api: Api, id: string, body: Uint8Array | string, contentType: string) =>
    api.request('PUT', `/document/${id}/content`, {
      raw: typeof body === 'string' ? new TextEncoder().encode(body) : body,
      headers: { 'content-type': contentType },
    });

  it('reads text files in their charset, JSON, and PDFs; a file that is not text is found by name only', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    const latin = await newDocument(api, repo.rootFolderId, { name: 'latin.txt', content: '' });
    const json = await newDocument(api, repo.rootFolderId, { name: 'data.json', content: '' });
    const pdf = await newDocument(api, repo.rootFolderId, { name: 'scan.pdf', content: '' });
    const binary = await newDocument(api, repo.rootFolderId, { name: 'blob.bin', content: '' });
    expect(
      (
        await putContent(
          api,
          latin.id,
          new Uint8Array([0x63, 0x72, 0xe8, 0x6d, 0x65, 0x20, 0x62, 0x72, 0xfb, 0x6c, 0xe9, 0x65]),
          'text/plain; charset=iso-8859-1',
        )
      ).status,
    ).toBe(200);
    expect((await putContent(api, json.id, '{"fruit": "persimmon"}', 'application/json')).status).toBe(200);
    expect((await putContent(api, pdf.id, new TextEncoder().encode(pdfWithText('quarterly mango report')), 'application/pdf')).status).toBe(
      200,
    );
    expect((await putContent(api, binary.id, 'mango mango', 'application/octet-stream')).status).toBe(200);
    const where = { repositoryId: repo.id };
    expect(await names(api, { ...where, q: 'creme brulee' })).toEqual(['latin.txt']);
    expect(await names(api, { ...where, q: 'persimmon' })).toEqual(['data.json']);
    expect(await names(api, { ...where, q: 'mango' })).toEqual(['scan.pdf']);
    expect(await names(api, { ...where, q: 'blob' })).toEqual(['blob.bin']);
  });

  it('a rename and a content change show; the old ones go', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    const doc = await newDocument(api, repo.rootFolderId, { name: 'first-name.txt', content: 'apricot' });
    expect(await names(api, { repositoryId: repo.id, q: 'apricot' })).toEqual(['first-name.txt']);
    expect((await api.put('/document', { id: doc.id, name: 'second-name.txt', content: 'quince' })).status).toBe(200);
    expect(await names(api, { repositoryId: repo.id, q: 'apricot' })).toEqual([]);
    expect(await names(api, { repositoryId: repo.id, q: 'first' })).toEqual([]);
    expect(await names(api, { repositoryId: repo.id, q: 'quince second' })).toEqual(['second-name.txt']);
  });

  it('the rebuild brings a lost index back from the table: folders, small and large text, files, the trash', async () => {
    const api = ctx.owner.api;
    const repo = await newRepository(api);
    const folder = await newFolder(api, repo.rootFolderId, 'tamarind folder');
    await newDocument(api, folder.id, { name: 'rebuilt.txt', content: 'tamarind' });
    // Over the 4 KB the document item keeps: its text is an item of its own.
    await newDocument(api, repo.rootFolderId, { name: 'long.txt', content: `${'filler '.repeat(1_000)}tamarind` });
    const file = await newDocument(api, repo.rootFolderId, { name: 'notes.json', content: '' });
    expect((await putContent(api, file.id, '{"fruit": "tamarind"}', 'application/json')).status).toBe(200);
    const trashed = await newDocument(api, repo.rootFolderId, { name: 'binned.txt', content: 'tamarind' });
    expect((await api.delete(`/document/${trashed.id}`)).status).toBe(204);
    const everything = ['long.txt', 'notes.json', 'rebuilt.txt', 'tamarind folder'];
    expect(await names(api, { repositoryId: repo.id, q: 'tamarind' })).toEqual(everything);
    await ctx.svc.search.execute('DELETE FROM search_items', []);
    expect(await names(api, { repositoryId: repo.id, q: 'tamarind' })).toEqual([]);
    const progress = await runAsFunction(reindexFunction, () => reindex(indexItems, { budgetMs: 60_000, fresh: true }));
    expect(progress.done).toBe(true);
    expect(await names(api, { repositoryId: repo.id, q: 'tamarind' })).toEqual(everything);
  });

  it('503 with Retry-After while the database resumes for longer than the function waits', async () => {
    ctx.svc.search.resumeFor(60_000);
    try {
      const res = await ctx.owner.api.get('/search?q=anything');
      expectProblem(res, 503);
      expect(res.headers.get('retry-after')).toBe('15');
    } finally {
      ctx.svc.search.resumeFor(0);
    }
  }, 30_000);
});
