/**
 * Racing requests against one name, one id or one version: exactly one wins, the others get
 * the contract's 409/412 (or, within a small share, a labelled 503: `oneWinner`), and the
 * listings agree with the winners (docs/api.md). The racing writes are sent once each.
 */
import { describe, expect, it } from 'vitest';
import { useServiceWithOwner } from '#test/support/fixture';
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
  postDocument,
  randomId,
} from '#test/support/http';

const N = 8;

const ctx = useServiceWithOwner();

const freshFolder = () => newFolder(ctx.user.api, ctx.repo.rootFolderId);
/** Starts all N requests before any of them is answered. */
const race = (fn: (i: number) => Promise<HttpResponse>) => Promise.all(Array.from({ length: N }, (_, i) => fn(i)));

/**
 * A loaded database is an outcome of its own, never a loser. The contract lets any request be
 * a 503 with Retry-After when DynamoDB does not answer in time, or (on AWS, and locally when
 * transaction conflicts are emulated) keeps cancelling its transaction past the service's retry
 * budget; such a request changed nothing. But a racer that should have lost with 409/412/404 is
 * told something useful only by that answer, so 503s may be at most MAX_UNAVAILABLE of the N
 * racers (a quarter). A race that has more is run again from scratch (fresh folder, documents
 * and ids), at most ROUNDS times in all; the last one must stay within the share. A service
 * that answers 503 to every loser fails every round.
 */
const MAX_UNAVAILABLE = 2;
const ROUNDS = 3;

const statusesOf = (responses: readonly HttpResponse[]) => responses.map((r) => `${r.status} ${r.text.slice(0, 200)}`).join('\n');

/**
 * Runs `round` (set-up and race) until it has at most MAX_UNAVAILABLE 503s, at most ROUNDS
 * times; then one winner with `winner`, every other racer a proper `loser` problem or a proper
 * 503 (counted, labelled, within the share). Returns the round's result and the winner.
 */
async function oneWinner<R extends { responses: HttpResponse[] }>(
  winner: 200 | 201 | 204,
  loser: 409 | 412 | 404,
  round: () => Promise<R>,
): Promise<R & { won: HttpResponse }> {
  for (let n = 1; ; n++) {
    const result = await round();
    const { [winner]: winners = 0, [loser]: losers = 0, 503: unavailable = 0, ...others } = countStatuses(result.responses);
    if (unavailable > MAX_UNAVAILABLE && n < ROUNDS) {
      console.log(`[stats] concurrency: round ${n} had ${unavailable} of ${N} racers answered 503 (loaded database); racing again`);
      continue;
    }
    const described = statusesOf(result.responses);
    expect({ winners, others }, described).toEqual({ winners: 1, others: {} });
    expect(
      unavailable,
      `503 (loaded database) for more than ${MAX_UNAVAILABLE} of ${N} racers, ${n} rounds:\n${described}`,
    ).toBeLessThanOrEqual(MAX_UNAVAILABLE);
    expect(losers + unavailable, described).toBe(N - 1);
    for (const r of result.responses) {
      if (r.status === loser) expectProblem(r, loser);
      if (r.status === 503) {
        expectProblem(r, 503);
        expect(Number(r.headers.get('retry-after')), `${r.request}: Retry-After`).toBeGreaterThan(0);
      }
    }
    return { ...result, won: result.responses.find((r) => r.status === winner)! };
  }
}

describe('racing creates', () => {
  it('of documents with one name: one 201, the rest 409, one listing entry', async () => {
    const { won, folder } = await oneWinner(201, 409, async () => {
      const folder = await freshFolder();
      return { folder, responses: await race(() => ctx.user.api.post('/document', { folderId: folder.id, name: 'race', content: 'x' })) };
    });
    const { items } = await listAll<Document>(ctx.user.api, `/folder/${folder.id}/documents`);
    expect(items.map((d) => d.id)).toEqual([won.body.id]);
  });

  it('of documents whose names differ in case and normalisation: one 201', async () => {
    const names = ['caf\u00e9', 'cafe\u0301', 'CAF\u00c9', 'Cafe\u0301', 'caF\u00e9', 'CAFE\u0301', 'Caf\u00e9', 'cAfe\u0301'];
    const { won, folder } = await oneWinner(201, 409, async () => {
      const folder = await freshFolder();
      return { folder, responses: await race((i) => ctx.user.api.post('/document', { folderId: folder.id, name: names[i] })) };
    });
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([won.body.name]);
  });

  it('of folders with one name: one 201, the rest 409, one listing entry', async () => {
    const { won, parent } = await oneWinner(201, 409, async () => {
      const parent = await freshFolder();
      return {
        parent,
        responses: await race((i) => ctx.user.api.post('/folder', { parentId: parent.id, name: i % 2 ? 'Shared' : 'shared' })),
      };
    });
    const { items } = await listAll<{ id: string }>(ctx.user.api, `/folder/${parent.id}/folders`);
    expect(items.map((f) => f.id)).toEqual([won.body.id]);
  });

  it('of folders and documents with one name: one 201 across both lists', async () => {
    const { won, parent } = await oneWinner(201, 409, async () => {
      const parent = await freshFolder();
      const responses = await race((i) =>
        i % 2
          ? ctx.user.api.post('/folder', { parentId: parent.id, name: 'Mixed' })
          : ctx.user.api.post('/document', { folderId: parent.id, name: 'mixed' }),
      );
      return { parent, responses };
    });
    const folders = await listAll<{ id: string }>(ctx.user.api, `/folder/${parent.id}/folders`);
    const documents = await listAll<{ id: string }>(ctx.user.api, `/folder/${parent.id}/documents`);
    expect([...folders.items, ...documents.items].map((item) => item.id)).toEqual([won.body.id]);
  });

  it('with one client-supplied id: one 201, the losers leave no trace', async () => {
    const names = Array.from({ length: N }, (_, i) => `claim ${i}`);
    const { won, folder, id } = await oneWinner(201, 409, async () => {
      const folder = await freshFolder();
      const id = randomId();
      return { folder, id, responses: await race((i) => ctx.user.api.post('/document', { id, folderId: folder.id, name: names[i] })) };
    });
    expect(won.body.id).toBe(id);
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([won.body.name]);
    // The names the losers asked for were not kept: each is free, at the first attempt (a
    // fixture's resend after a 503 would take a 409 for its own earlier attempt and hide one).
    for (const name of names.filter((n) => n !== won.body.name)) await postDocument(ctx.user.api, folder.id, { name });
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toHaveLength(N);
  });
});

describe('racing updates', () => {
  it('with If-Match "1": one 200, the rest 412, final version 2', async () => {
    const { won, doc } = await oneWinner(200, 412, async () => {
      const doc = await newDocument(ctx.user.api, (await freshFolder()).id, { content: 'v1' });
      return {
        doc,
        responses: await race((i) => ctx.user.api.put('/document', { id: doc.id, content: `writer ${i}` }, { 'If-Match': '"1"' })),
      };
    });
    const stored = await getDocument(ctx.user.api, doc.id);
    expect(stored.version).toBe(2);
    expect(stored.content).toBe(won.body.content);
  });

  it('with version 1 in the body: one 200, the rest 412', async () => {
    const { won, doc } = await oneWinner(200, 412, async () => {
      const doc = await newDocument(ctx.user.api, (await freshFolder()).id);
      return { doc, responses: await race((i) => ctx.user.api.put('/document', { id: doc.id, content: `writer ${i}`, version: 1 })) };
    });
    const stored = await getDocument(ctx.user.api, doc.id);
    expect(stored.version).toBe(2);
    expect(stored.content).toBe(won.body.content);
  });

  it('without preconditions: each is applied (200, a distinct version) or, past the retry budget, 503 with nothing applied', async () => {
    // The contract: an unconditional write applies to whatever version is stored; one that keeps
    // colliding may be answered 503 (retry) instead, and then it changed nothing. The 503s are
    // held to the same share as a loaded database's in `oneWinner`, the race run again past it.
    let round: { doc: Document; responses: HttpResponse[] };
    for (let n = 1; ; n++) {
      const doc = await newDocument(ctx.user.api, (await freshFolder()).id, { content: 'v1' });
      round = { doc, responses: await race((i) => ctx.user.api.put('/document', { id: doc.id, content: `writer ${i}` })) };
      const unavailable = round.responses.filter((r) => r.status === 503).length;
      if (unavailable <= MAX_UNAVAILABLE || n === ROUNDS) break;
      console.log(`[stats] concurrency: round ${n} of unconditional writes had ${unavailable} of ${N} answered 503; racing again`);
    }
    const { doc, responses } = round;
    const described = statusesOf(responses);
    const applied = responses.filter((r) => r.status === 200);
    for (const r of responses) {
      if (r.status === 200) continue;
      expectProblem(r, 503);
      expect(Number(r.headers.get('retry-after')), `${r.request}: Retry-After`).toBeGreaterThan(0);
    }
    expect(N - applied.length, `503 for more than ${MAX_UNAVAILABLE} of ${N} writers:\n${described}`).toBeLessThanOrEqual(MAX_UNAVAILABLE);
    const versions = applied.map((r) => r.body.version as number).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: applied.length }, (_, i) => i + 2));
    const last = applied.find((r) => r.body.version === applied.length + 1)!;
    const stored = await getDocument(ctx.user.api, doc.id);
    expect(stored.version).toBe(applied.length + 1);
    expect(stored.content).toBe(last.body.content);
  });

  it('renaming different documents to one name: one 200, the rest 409, the others keep their names', async () => {
    const { won, folder, docs } = await oneWinner(200, 409, async () => {
      const folder = await freshFolder();
      const docs: Document[] = [];
      for (let i = 0; i < N; i++) docs.push(await newDocument(ctx.user.api, folder.id, { name: `doc ${i}` }));
      return { folder, docs, responses: await race((i) => ctx.user.api.put('/document', { id: docs[i]!.id, name: 'Target' })) };
    });
    const expected = byName(docs.map((d) => ({ name: d.id === won.body.id ? 'Target' : d.name }))).map((d) => d.name);
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual(expected);
  });

  it('deleting one document: one 204, the rest 404', async () => {
    const { folder, doc } = await oneWinner(204, 404, async () => {
      const folder = await freshFolder();
      const doc = await newDocument(ctx.user.api, folder.id);
      return { folder, doc, responses: await race(() => ctx.user.api.delete(`/document/${doc.id}`)) };
    });
    expect(await namesIn(ctx.user.api, folder.id, 'documents')).toEqual([]);
    // In the trash, once.
    expectProblem(await ctx.user.api.get(`/document/${doc.id}`), 404);
    const trash = await listAll<{ id: string }>(ctx.user.api, `/${ctx.repo.id}/trash`, 100);
    expect(trash.items.filter((item) => item.id === doc.id)).toHaveLength(1);
  });
});
