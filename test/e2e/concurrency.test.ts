/**
 * Racing requests against one name, one id or one version: exactly one wins, the others get
 * the contract's 409/412, and the listings agree with the winners (docs/api.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  byName,
  countStatuses,
  type Document,
  expectProblem,
  getDocument,
  type HttpResponse,
  listAll,
  namesIn,
  newDocument,
  newFolder,
  type Repository,
  randomId,
  type User,
} from '#test/support/http';
import { startWithOwner, type TestService } from '#test/support/service';

const N = 8;

let svc: TestService;
let user: User;
let repo: Repository;
beforeAll(async () => {
  ({ svc, user, repo } = await startWithOwner());
}, 60_000);
afterAll(() => svc.stop());

const freshFolder = () => newFolder(user.api, repo.rootFolderId);
/** Starts all N requests before any of them is answered. */
const race = (fn: (i: number) => Promise<HttpResponse>) => Promise.all(Array.from({ length: N }, (_, i) => fn(i)));

/** One winner with `winner`, every loser a proper `loser` problem. */
function expectOneWinner(responses: HttpResponse[], winner: number, loser: 409 | 412 | 404): HttpResponse {
  // One winner; every other racer loses, or gets the 503 (with Retry-After) the contract allows
  // any request when the database is too busy to answer in time (a loaded machine).
  const { [winner]: winners = 0, [loser]: losers = 0, 503: unavailable = 0, ...others } = countStatuses(responses);
  const described = responses.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('\n');
  expect({ winners, others }, described).toEqual({ winners: 1, others: {} });
  expect(losers + unavailable, described).toBe(N - 1);
  for (const r of responses) if (r.status === loser || r.status === 503) expectProblem(r, r.status as 409 | 412 | 404 | 503);
  return responses.find((r) => r.status === winner)!;
}

describe('racing creates', () => {
  it('of documents with one name: one 201, the rest 409, one listing entry', async () => {
    const folder = await freshFolder();
    const responses = await race(() => user.api.post('/document', { folderId: folder.id, name: 'race', content: 'x' }));
    const won = expectOneWinner(responses, 201, 409);
    const { items } = await listAll<Document>(user.api, `/folder/${folder.id}/documents`);
    expect(items.map((d) => d.id)).toEqual([won.body.id]);
  });

  it('of documents whose names differ in case and normalisation: one 201', async () => {
    const folder = await freshFolder();
    const names = ['caf\u00e9', 'cafe\u0301', 'CAF\u00c9', 'Cafe\u0301', 'caF\u00e9', 'CAFE\u0301', 'Caf\u00e9', 'cAfe\u0301'];
    const responses = await race((i) => user.api.post('/document', { folderId: folder.id, name: names[i] }));
    const won = expectOneWinner(responses, 201, 409);
    expect(await namesIn(user.api, folder.id, 'documents')).toEqual([won.body.name]);
  });

  it('of folders with one name: one 201, the rest 409, one listing entry', async () => {
    const parent = await freshFolder();
    const responses = await race((i) => user.api.post('/folder', { parentId: parent.id, name: i % 2 ? 'Shared' : 'shared' }));
    const won = expectOneWinner(responses, 201, 409);
    const { items } = await listAll<{ id: string }>(user.api, `/folder/${parent.id}/folders`);
    expect(items.map((f) => f.id)).toEqual([won.body.id]);
  });

  it('of folders and documents with one name: one 201 across both lists', async () => {
    const parent = await freshFolder();
    const responses = await race((i) =>
      i % 2
        ? user.api.post('/folder', { parentId: parent.id, name: 'Mixed' })
        : user.api.post('/document', { folderId: parent.id, name: 'mixed' }),
    );
    expectOneWinner(responses, 201, 409);
    const folders = await namesIn(user.api, parent.id, 'folders');
    const documents = await namesIn(user.api, parent.id, 'documents');
    expect([...folders, ...documents]).toHaveLength(1);
  });

  it('with one client-supplied id: one 201, the losers leave no trace', async () => {
    const folder = await freshFolder();
    const id = randomId();
    const names = Array.from({ length: N }, (_, i) => `claim ${i}`);
    const responses = await race((i) => user.api.post('/document', { id, folderId: folder.id, name: names[i] }));
    const won = expectOneWinner(responses, 201, 409);
    expect(won.body.id).toBe(id);
    expect(await namesIn(user.api, folder.id, 'documents')).toEqual([won.body.name]);
    // the names the losers asked for were not kept
    for (const name of names.filter((n) => n !== won.body.name)) await newDocument(user.api, folder.id, { name });
    expect(await namesIn(user.api, folder.id, 'documents')).toHaveLength(N);
  });
});

describe('racing updates', () => {
  it('with If-Match "1": one 200, the rest 412, final version 2', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(user.api, folder.id, { content: 'v1' });
    const responses = await race((i) => user.api.put('/document', { id: doc.id, content: `writer ${i}` }, { 'If-Match': '"1"' }));
    const won = expectOneWinner(responses, 200, 412);
    const stored = await getDocument(user.api, doc.id);
    expect(stored.version).toBe(2);
    expect(stored.content).toBe(won.body.content);
  });

  it('with version 1 in the body: one 200, the rest 412', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(user.api, folder.id);
    const responses = await race((i) => user.api.put('/document', { id: doc.id, content: `writer ${i}`, version: 1 }));
    expectOneWinner(responses, 200, 412);
    expect((await getDocument(user.api, doc.id)).version).toBe(2);
  });

  it('without preconditions: each is applied (200, a distinct version) or, past the retry budget, 503 with nothing applied', async () => {
    // The contract: an unconditional write applies to whatever version is stored; one that keeps
    // colliding may be answered 503 (retry) instead, and then it changed nothing.
    const folder = await freshFolder();
    const doc = await newDocument(user.api, folder.id, { content: 'v1' });
    const responses = await race((i) => user.api.put('/document', { id: doc.id, content: `writer ${i}` }));
    const applied = responses.filter((r) => r.status === 200);
    for (const r of responses) if (r.status !== 200) expectProblem(r, 503);
    expect(applied.length, responses.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('\n')).toBeGreaterThan(0);
    const versions = applied.map((r) => r.body.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: applied.length }, (_, i) => i + 2));
    const last = applied.find((r) => r.body.version === applied.length + 1)!;
    const stored = await getDocument(user.api, doc.id);
    expect(stored.version).toBe(applied.length + 1);
    expect(stored.content).toBe(last.body.content);
  });

  it('renaming different documents to one name: one 200, the rest 409, the others keep their names', async () => {
    const folder = await freshFolder();
    const docs: Document[] = [];
    for (let i = 0; i < N; i++) docs.push(await newDocument(user.api, folder.id, { name: `doc ${i}` }));
    const responses = await race((i) => user.api.put('/document', { id: docs[i]!.id, name: 'Target' }));
    const won = expectOneWinner(responses, 200, 409);
    const expected = byName(docs.map((d) => ({ name: d.id === won.body.id ? 'Target' : d.name }))).map((d) => d.name);
    expect(await namesIn(user.api, folder.id, 'documents')).toEqual(expected);
  });

  it('deleting one document: one 204, the rest 404', async () => {
    const folder = await freshFolder();
    const doc = await newDocument(user.api, folder.id);
    const responses = await race(() => user.api.delete(`/document/${doc.id}`));
    expectOneWinner(responses, 204, 404);
    expect(await namesIn(user.api, folder.id, 'documents')).toEqual([]);
  });
});
