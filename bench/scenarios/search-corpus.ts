/**
 * The search scenario's side in the service process (bench/service.ts), where the local search
 * database lives: the index seeded with the indexer's own write (`upsertItem`, what
 * functions/worker/indexer.ts calls for each change), the same SQL as `GET /search` run straight
 * on PGlite (`searchItems`), and the rebuild (`reindex` with the indexer's `indexItems`).
 *
 * The corpus is made up, the same on every run: names of two or three words, contents of words
 * drawn from a vocabulary of 5,000 made-up words and a few common English ones (each ~2% of the
 * words), every tenth document with ~10 KB of text and the others ~300 bytes.
 */
import { listRepositories } from '#core/items/repository';
import type { Caller } from '#core/resources';
import { execute } from '#core/search/database';
import { parseQuery } from '#core/search/query';
import { reindex } from '#core/search/reindex';
import { searchItems, upsertItem } from '#core/search/search-index';
import { reindexFunction, workerFunction } from '#functions/routes';
import { indexItems } from '#functions/worker/indexer';
import { runAsFunction } from '#lib/local/permissions';

/** Words that many documents share (the "common words" of the scenario). */
export const COMMON_WORDS = ['report', 'budget', 'meeting', 'customer', 'project', 'review', 'contract', 'schedule'] as const;
const SYLLABLES = ['ka', 'lo', 'mi', 'ten', 'sor', 'vu', 'pel', 'dra', 'qui', 'zan', 'bo', 'rish', 'el', 'nof', 'tay', 'gu'];

/** The n-th made-up word (`rare` words: any n; each appears in a handful of documents). */
export const madeUpWord = (n: number) =>
  SYLLABLES[n % 16]! + SYLLABLES[Math.floor(n / 16) % 16]! + SYLLABLES[Math.floor(n / 256) % 16]! + (n >= 4096 ? 'x' : '');

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(next: () => number, bytes: number): string {
  const words: string[] = [];
  let length = 0;
  while (length < bytes) {
    const r = next();
    const word =
      r < 0.16 ? COMMON_WORDS[Math.floor(r * 50) % COMMON_WORDS.length]! : r < 0.3 ? 'the' : madeUpWord(Math.floor(next() * 5000));
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ');
}

export interface SeedReport {
  documents: number;
  long: number;
  seconds: number;
  contentBytes: number;
  /** The index's table with its indexes and TOAST, bytes (PostgreSQL's own count). */
  tableBytes: number;
}

/** `count` documents into the index of `repositoryId` under `folderId`, `width` writes at a time. */
export async function seedSearchIndex(options: {
  repositoryId: string;
  folderId: string;
  count: number;
  width?: number;
}): Promise<SeedReport> {
  const next = random(32);
  const started = performance.now();
  let contentBytes = 0;
  let long = 0;
  const one = async (n: number) => {
    const isLong = n % 10 === 0;
    if (isLong) long++;
    const content = text(next, isLong ? 10_000 : 300);
    contentBytes += content.length;
    const name = `${madeUpWord(n % 5000)} ${n % 7 === 0 ? COMMON_WORDS[n % COMMON_WORDS.length] : madeUpWord((n * 7) % 5000)} ${n}.txt`;
    await upsertItem(
      {
        id: `bench-search-${n}`,
        repositoryId: options.repositoryId,
        kind: 'document',
        folderId: options.folderId,
        name,
        contentType: 'text/plain',
        size: content.length,
        version: 1,
        updatedAt: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
        trashed: false,
        content,
        contentVersion: 1,
      },
      1,
    );
  };
  const width = options.width ?? 4;
  await runAsFunction(workerFunction, async () => {
    for (let n = 0; n < options.count; n += width) {
      await Promise.all(Array.from({ length: Math.min(width, options.count - n) }, (_, i) => one(n + i)));
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const [size] = await runAsFunction(workerFunction, () => execute("SELECT pg_total_relation_size('search_items') AS bytes"));
  return { documents: options.count, long, seconds, contentBytes, tableBytes: Number(size?.bytes ?? 0) };
}

/** Every repository `caller` is a member of (what `GET /search` reads first). */
async function repositoriesOf(caller: Caller): Promise<string[]> {
  const ids: string[] = [];
  let nextToken: string | undefined;
  do {
    const page = await listRepositories(caller, { limit: 100, ...(nextToken ? { nextToken } : {}) });
    ids.push(...page.items.map((r) => r.id));
    nextToken = page.nextToken;
  } while (nextToken);
  return ids;
}

/**
 * The SQL of `GET /search?q=…` (a first page of 20: the route asks for one more) straight on the
 * database, queries taking turns, `concurrency` at a time for `seconds`: each call's ms.
 */
export async function bareSearch(caller: Caller, queries: readonly string[], concurrency: number, seconds: number) {
  const repositoryIds = await repositoriesOf(caller);
  const parsed = queries.map((q) => parseQuery(q));
  const samples: number[] = [];
  let turn = 0;
  let bytes = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await runAsFunction(workerFunction, () =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < end) {
          const query = parsed[turn++ % parsed.length]!;
          const t0 = performance.now();
          const hits = await searchItems({ query, repositoryIds, offset: 0, limit: 21 });
          samples.push(performance.now() - t0);
          bytes += JSON.stringify(hits).length;
        }
      }),
    ),
  );
  return { samples, seconds: (performance.now() - started) / 1000, meanResponseBytes: bytes / Math.max(1, samples.length) };
}

/** The rebuild of the whole index from the table, as `npm run reindex -- --fresh` runs it. */
export async function timedReindex(): Promise<{ items: number; seconds: number }> {
  const started = performance.now();
  const progress = await runAsFunction(reindexFunction, () => reindex(indexItems, { budgetMs: 3_600_000, fresh: true }));
  return { items: progress.items, seconds: (performance.now() - started) / 1000 };
}
