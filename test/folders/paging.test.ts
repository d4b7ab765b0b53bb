/**
 * Lists (docs/api.md): pages concatenate to the whole list in name order, case-insensitively,
 * with no duplicates and no gaps; `nextToken` is absent on the last page; limit defaults to 50.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useServiceWithOwner } from '#test/support/fixture';
import { byName, type Document, expectJson, type Folder, inBatches, listAll, newDocument, newFolder } from '#test/support/http';

const COUNT = 53; // more than the default page size of 50

const ctx = useServiceWithOwner();
let folder: Folder;
/** The folder's documents in the order the contract promises. */
let expected: Document[];
beforeAll(async () => {
  folder = await newFolder(ctx.user.api, ctx.repo.rootFolderId);
  // Mixed case, so that a case-sensitive order ("B" before "a") would show.
  const names = Array.from({ length: COUNT }, (_, i) => {
    const letter = String.fromCharCode(97 + (i % 26));
    return `${(i + Math.floor(i / 26)) % 2 ? letter.toUpperCase() : letter} item ${String(i).padStart(2, '0')}`;
  });
  const created = await inBatches(names, 4, (name) => newDocument(ctx.user.api, folder.id, { name, content: `content of ${name}` }));
  expected = byName(created);
}, 90_000);

const path = () => `/folder/${folder.id}/documents`;
const ids = (items: { id: string }[]) => items.map((d) => d.id);

describe('paging a folder of 53 documents', () => {
  it('with limit=5: full pages, a short last page without nextToken, the whole list in order', async () => {
    const { items, pages } = await listAll<Document>(ctx.user.api, path(), 5);
    expect(pages.map((p) => p.length)).toEqual([...Array<number>(10).fill(5), 3]);
    expect(new Set(ids(items)).size).toBe(COUNT);
    expect(ids(items)).toEqual(ids(expected));
  });

  it('orders case-insensitively', async () => {
    const { items } = await listAll<Document>(ctx.user.api, path(), 100);
    const names = items.map((d) => d.name);
    expect(names.slice(0, 4)).toEqual(['a item 00', 'A item 26', 'a item 52', 'B item 01']);
  });

  it('has a default limit of 50', async () => {
    const first = await ctx.user.api.get(path());
    expectJson(first, 200);
    expect(first.body.items).toHaveLength(50);
    expect(typeof first.body.nextToken).toBe('string');

    const rest = await ctx.user.api.get(`${path()}?nextToken=${encodeURIComponent(first.body.nextToken)}`);
    expectJson(rest, 200);
    expect(rest.body.items).toHaveLength(COUNT - 50);
    expect(rest.body).not.toHaveProperty('nextToken');
    expect(ids([...first.body.items, ...rest.body.items])).toEqual(ids(expected));
  });

  it('accepts limit=100 and answers the whole list in one page', async () => {
    const res = await ctx.user.api.get(`${path()}?limit=100`);
    expectJson(res, 200);
    expect(res.body).not.toHaveProperty('nextToken');
    expect(ids(res.body.items)).toEqual(ids(expected));
  });

  it('ends without nextToken when the last page is exactly full (no empty page after it)', async () => {
    const { pages } = await listAll<Document>(ctx.user.api, path(), COUNT);
    expect(pages.map((p) => p.length)).toEqual([COUNT]);
  });

  it('gives the same pages on every call', async () => {
    const first = await listAll<Document>(ctx.user.api, path(), 7);
    const second = await listAll<Document>(ctx.user.api, path(), 7);
    expect(second.pages.map(ids)).toEqual(first.pages.map(ids));
    expect(second.tokens).toHaveLength(first.tokens.length);
  });

  it('lets the page size change between pages', async () => {
    const first = await ctx.user.api.get(`${path()}?limit=10`);
    const second = await ctx.user.api.get(`${path()}?limit=30&nextToken=${encodeURIComponent(first.body.nextToken)}`);
    expectJson(second, 200);
    expect(ids([...first.body.items, ...second.body.items])).toEqual(ids(expected.slice(0, 40)));
  });

  it('lists documents without content but with every other field', async () => {
    const { items } = await listAll<Document>(ctx.user.api, path(), 50);
    for (const [i, item] of items.entries()) {
      const { content, ...rest } = expected[i]!;
      expect(content).toBeDefined();
      expect(item).toEqual(rest);
    }
  });
});
