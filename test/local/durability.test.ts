/**
 * A write answered 2xx is kept even when the local service and DynamoDB Local are killed
 * (SIGKILL, both process groups) the moment after the answer, with other writes in flight.
 *
 * Each round: a repository with seed documents, then ~40 concurrent writes (creates, renames,
 * deletes); at a random Nth answer node's and java's groups are SIGKILLed; `bin/local.ts` is
 * started again on the same DATA_DIR, and every answered write must be there as answered.
 * Writes still in flight at the kill may have happened or not, but wholly.
 * DURABILITY_ROUNDS=<n> runs more rounds (default 2: each is ~20 s of a 2-core machine; a kill at
 * a random answer, so more rounds try more moments, not other code).
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadLocalIssuer } from '#lib/local/jwt';
import { killHard, type Running, removeService, startService, waitUntilGone } from '#test/support/child-service';

const ROUNDS = Number(process.env.DURABILITY_ROUNDS) || 2;
const SEEDS = 20;
const CREATES = 20;

interface Answer {
  status: number;
  body: any;
}

/** Rejects when the connection dies (the kill). */
async function call(url: string, token: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** What a document must look like after the restart; several states when its write's fate is unknown. */
type State = { absent: true } | { absent?: false; name: string; version: number; content: string };

interface Tracked {
  id: string;
  /** Acceptable states, the first being what was answered (or the state before an unanswered write). */
  allowed: State[];
  what: string;
}

const newId = () => randomBytes(16).toString('base64url');
const describeState = (s: State) => (s.absent ? 'absent' : `"${s.name}" v${s.version}`);

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}

describe('durability of answered writes across SIGKILL of the local service and DynamoDB Local', () => {
  let dataDir: string;
  let running: Running | undefined;
  let token: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'documents-durability-'));
    running = await startService(dataDir);
    // As bin/token.ts does: the local issuer's keys in the same DATA_DIR.
    token = await (await loadLocalIssuer(dataDir)).issueToken('durability-owner');
  }, 60_000);

  afterAll(() => removeService(running, dataDir), 30_000);

  for (let round = 1; round <= ROUNDS; round++) {
    it(`round ${round}: every write answered 2xx before the kill is there after the restart`, async () => {
      const service = running!;
      const { url } = service;

      // Seed: a repository and documents to rename and delete, answered before the burst.
      const repo = await answer(await call(url, token, 'POST', '/', { name: `durability ${round} ${newId()}` }));
      expect(repo.status, JSON.stringify(repo.body)).toBe(201);
      const folderId: string = repo.body.rootFolderId;
      const tracked = new Map<string, Tracked>();
      await Promise.all(
        Array.from({ length: SEEDS }, async (_, i) => {
          const id = newId();
          const content = `seed ${i} ${id}`;
          const created = await answer(await call(url, token, 'POST', '/document', { id, folderId, name: `seed-${i}.txt`, content }));
          expect(created.status, JSON.stringify(created.body)).toBe(201);
          tracked.set(id, { id, what: `seed ${i}`, allowed: [{ name: `seed-${i}.txt`, version: 1, content }] });
        }),
      );

      // The burst: creates, renames and deletes in random order, all in flight at once.
      const seeds = shuffle([...tracked.values()]);
      const writes: { run: () => Promise<Response>; onAnswer: (status: number) => void; onUnknown: () => void }[] = [];
      for (const [i, seed] of seeds.entries()) {
        const before = seed.allowed[0]! as Exclude<State, { absent: true }>;
        if (i % 2 === 0) {
          const after: State = { ...before, name: `renamed-${i}.txt`, version: 2 };
          writes.push({
            run: () => call(url, token, 'PUT', '/document', { id: seed.id, name: after.name }, { 'if-match': '"1"' }),
            onAnswer: (status) => {
              seed.what = `rename of ${seed.what} (answered ${status})`;
              seed.allowed = status === 200 ? [after] : [before, after];
            },
            onUnknown: () => {
              seed.what = `rename of ${seed.what} (unanswered)`;
              seed.allowed = [before, after];
            },
          });
        } else {
          writes.push({
            run: () => call(url, token, 'DELETE', `/document/${seed.id}`, undefined, { 'if-match': '"1"' }),
            onAnswer: (status) => {
              seed.what = `delete of ${seed.what} (answered ${status})`;
              seed.allowed = status === 204 ? [{ absent: true }] : [before, { absent: true }];
            },
            onUnknown: () => {
              seed.what = `delete of ${seed.what} (unanswered)`;
              seed.allowed = [before, { absent: true }];
            },
          });
        }
      }
      for (let i = 0; i < CREATES; i++) {
        const id = newId();
        const state: State = { name: `new-${i}.txt`, version: 1, content: `new ${i} ${id}` };
        const doc: Tracked = { id, what: `create ${i}`, allowed: [{ absent: true }, state] };
        tracked.set(id, doc);
        writes.push({
          run: () => call(url, token, 'POST', '/document', { id, folderId, name: state.name, content: state.content }),
          onAnswer: (status) => {
            doc.what = `create ${i} (answered ${status})`;
            if (status === 201) doc.allowed = [state];
          },
          onUnknown: () => {
            doc.what = `create ${i} (unanswered)`;
          },
        });
      }
      shuffle(writes);

      const killAt = 5 + Math.floor(Math.random() * (writes.length - 9)); // 5..writes.length-5: writes still in flight
      let answers = 0;
      const statuses: number[] = [];
      await Promise.allSettled(
        writes.map(async (write) => {
          let response: Response;
          try {
            response = await write.run();
          } catch {
            write.onUnknown(); // the connection died with the service: no answer
            return;
          }
          // Counted when the status line arrives: that is when the client knows it was kept.
          write.onAnswer(response.status);
          statuses.push(response.status);
          if (++answers === killAt) killHard(service);
          await response.arrayBuffer().catch(() => {});
        }),
      );
      await waitUntilGone(service, dataDir);

      running = undefined;
      running = await startService(dataDir);
      const { url: again } = running;

      const problems: string[] = [];
      const reads = await Promise.all(
        [...tracked.values()].map(async (doc) => ({ doc, read: await answer(await call(again, token, 'GET', `/document/${doc.id}`)) })),
      );
      for (const { doc, read } of reads) {
        const found: State | undefined =
          read.status === 404
            ? { absent: true }
            : read.status === 200
              ? { name: read.body.name, version: read.body.version, content: read.body.content }
              : undefined;
        const ok =
          found !== undefined &&
          doc.allowed.some((s) =>
            s.absent || found.absent
              ? Boolean(s.absent) === Boolean(found.absent)
              : s.name === found.name && s.version === found.version && s.content === found.content,
          );
        if (!ok) {
          const seen = found ? describeState(found) : `${read.status} ${JSON.stringify(read.body)}`;
          problems.push(`${doc.what}: expected ${doc.allowed.map(describeState).join(' or ')}, found ${seen}`);
        }
      }
      const answered2xx = statuses.filter((s) => s >= 200 && s < 300).length;
      expect(problems, `killed at answer ${killAt} of ${writes.length} (${answered2xx} answered 2xx); lost or wrong after restart`).toEqual(
        [],
      );
    }, 45_000);
  }
});
