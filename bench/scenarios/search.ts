/**
 * Search (issue 32, docs/api.md: Search): 100,000 documents in the index, 10,000 of them with
 * ~10 KB of text, and a few PDFs. The 100,000 are written straight into the index with the
 * indexer's own write (./search-corpus.ts, in the service process): through the API and the
 * worker they would take most of an hour here. The PDFs, and every write of the freshness runs,
 * go through the API and the worker as a user's would.
 *
 * Measured: `GET /search` through the local stack against the same SQL straight on PGlite, one
 * at a time (p50, p95) and `CONCURRENCY` at a time (searches a second); the common words alone;
 * create, rename, content change and PDF upload → found (p50, p95); documents written to the table
 * and indexed from the stream; the rebuild of the whole table (items a second, and 100,000 at that
 * rate); the cost of a million searches from what was measured (bench/cost-model.ts).
 */

import { pdfWithText } from '#test/support/pdf';
import { searchIdleCost, searchPerMillion } from '../cost-model';
import { hammer, latencies, quantile, type Request, round, send, sleep } from '../load';
import { f, n } from '../markdown';
import type { SearchResult } from '../results';
import type { Scenario } from '../scenario';
import { COMMON_WORDS, madeUpWord } from './search-corpus';

/** The 100,000; fewer with BENCH_SEARCH_DOCUMENTS (seeding runs at the index's write rate: minutes on a loaded machine). */
const DOCUMENTS = Number(process.env.BENCH_SEARCH_DOCUMENTS ?? 100_000);
const TARGET = 100_000;
const STREAMED = 3_000;
/** Documents written to the table without their changes before the rebuild (BENCH_SEARCH_REBUILT; the 100,000). */
const REBUILT = Number(process.env.BENCH_SEARCH_REBUILT ?? 100_000);
const CONCURRENCY = 4;
const FRESHNESS_WRITES = 15;
const PDFS = 3;
/** Read units of the caller's memberships (a Query of the listing and a BatchGetItem of the repositories). */
const MEMBERSHIP_READ_UNITS = 2;

const QUERIES = [
  madeUpWord(1234),
  `${COMMON_WORDS[1]} ${madeUpWord(77)}`,
  `"${COMMON_WORDS[0]} ${COMMON_WORDS[2]}"`,
  `${madeUpWord(4000)} OR ${madeUpWord(321)}`,
  'sorvu',
  `${COMMON_WORDS[3]} -${COMMON_WORDS[4]}`,
];

const searchRequest = (q: string, extra = ''): Request => ({ method: 'GET', path: `/search?limit=20&q=${encodeURIComponent(q)}${extra}` });
const pct = (samples: number[]) => ({ p50: round(quantile(samples, 0.5)), p95: round(quantile(samples, 0.95)), samples: samples.length });

export const search: Scenario = {
  name: 'search',
  title: 'search: 100,000 documents, through the stack and straight on PGlite; freshness; rebuild; cost',
  async run({ service, target, fixture, seconds, log }) {
    await service.settled();
    const built = await service.seedSearch(DOCUMENTS);
    log(
      `  index: ${n(DOCUMENTS)} documents (${n(built.long)} of ~10 KB) in ${f(built.seconds, 1)} s, ${n(Math.round(DOCUMENTS / built.seconds))}/s`,
    );

    // Writes through the API, each polled until GET /search finds it.
    const freshness: SearchResult['freshness'] = [];
    let unique = 0;
    const word = () => `fresh${Date.now().toString(36)}q${unique++}`;
    const found = async (q: string) => {
      for (const until = performance.now() + 120_000; performance.now() < until; ) {
        const res = await send(target, searchRequest(q, `&repositoryId=${fixture.repositoryId}`));
        if (res.status === 200 && res.body.items.length > 0) return;
        await sleep(20);
      }
      throw new Error(`search: "${q}" not found after 2 minutes`);
    };
    const ok = async (answer: Promise<{ status: number }>) => {
      const { status } = await answer;
      if (status !== 200) throw new Error(`search: a write answered ${status}`);
    };
    const timed = async (kind: string, write: (w: string) => Promise<unknown>) => {
      const samples: number[] = [];
      for (let i = 0; i < (kind === 'PDF upload' ? PDFS : FRESHNESS_WRITES); i++) {
        const w = word();
        const t0 = performance.now();
        await write(w);
        await found(w);
        samples.push(performance.now() - t0);
      }
      freshness.push({ kind, ...pct(samples), max: round(Math.max(...samples)) });
      log(`  ${kind} → found: p50 ${f(quantile(samples, 0.5), 0)} ms, p95 ${f(quantile(samples, 0.95), 0)} ms`);
    };
    const create = async (name: string, content = '') => {
      const res = await send(target, { method: 'POST', path: '/document', body: { folderId: fixture.writeFolderId, name, content } });
      if (res.status !== 201) throw new Error(`POST /document: ${res.status}`);
      return res.body.id as string;
    };
    await timed('create', (w) => create(`${w}.txt`));
    const renamed = await create('to-rename.txt');
    await timed('rename', (w) => ok(send(target, { method: 'PUT', path: '/document', body: { id: renamed, name: `${w}.txt` } })));
    const changed = await create('to-change.txt', 'first');
    await timed('content change', (w) =>
      ok(send(target, { method: 'PUT', path: '/document', body: { id: changed, content: `now ${w}` } })),
    );
    await timed('PDF upload', async (w) => {
      const id = await create(`scan-${unique}.pdf`);
      const res = await send(target, {
        method: 'PUT',
        path: `/document/${id}/content`,
        raw: { body: pdfWithText(`quarterly ${w} figures`), contentType: 'application/pdf' },
      });
      if (res.status !== 200) throw new Error(`PUT content (PDF): ${res.status}`);
    });

    // One at a time, the queries taking turns (each counts alike, however long it takes), through the stack and
    // the same SQL straight on PGlite.
    for (const q of QUERIES) await latencies(target, searchRequest(q), 0.5); // warm-up
    let next = 0;
    const served = await hammer(target, () => searchRequest(QUERIES[next++ % QUERIES.length]!), 200, 1, seconds * 3);
    if (served.latency.errors > 0) throw new Error(`search: ${served.latency.errors} failed searches`);
    const serviceSamples = served.samples;
    const bareOne = await service.bareSearch(QUERIES, 1, seconds * 3);
    const commonSamples: number[] = [];
    for (const q of COMMON_WORDS.slice(0, 4)) commonSamples.push(...(await latencies(target, searchRequest(q), seconds / 2)));
    const oneAtATime = { service: pct(serviceSamples), bare: pct(bareOne.samples) };
    // The i-th sample is the (i mod n)-th query's on both sides.
    const ofQuery = (samples: number[], k: number) => samples.filter((_, i) => i % QUERIES.length === k);
    const perQuery = QUERIES.map((q, k) => ({ q, service: pct(ofQuery(serviceSamples, k)), bare: pct(ofQuery(bareOne.samples, k)) }));
    log(
      `  one at a time: service p50 ${oneAtATime.service.p50} / p95 ${oneAtATime.service.p95} ms; bare p50 ${oneAtATime.bare.p50} / p95 ${oneAtATime.bare.p95} ms; common words p95 ${f(quantile(commonSamples, 0.95), 0)} ms`,
    );
    for (const row of perQuery) log(`    ${row.q}: service p50 ${row.service.p50} ms, bare p50 ${row.bare.p50} ms`);

    // CONCURRENCY at a time, the queries taking turns on both sides.
    let turn = 0;
    const loaded = await hammer(target, () => searchRequest(QUERIES[turn++ % QUERIES.length]!), 200, CONCURRENCY, seconds * 2);
    const bareLoaded = await service.bareSearch(QUERIES, CONCURRENCY, seconds * 2);
    const bareRps = bareLoaded.samples.length / bareLoaded.seconds;
    const throughput = {
      concurrency: CONCURRENCY,
      service: round(loaded.latency.rps, 1),
      bare: round(bareRps, 1),
      ratio: round(loaded.latency.rps / bareRps),
      errors: loaded.latency.errors,
    };
    log(`  ${CONCURRENCY} at a time: service ${throughput.service}/s, bare ${throughput.bare}/s, ratio ${throughput.ratio}`);

    // Documents through the table and the stream, then the rebuild of the whole table.
    const streamStarted = performance.now();
    await service.seed(STREAMED, fixture.bigFolderId);
    await service.settled(1_800_000);
    const streamSeconds = (performance.now() - streamStarted) / 1000;
    const stream = { documents: STREAMED, seconds: round(streamSeconds, 1), perSecond: round(STREAMED / streamSeconds, 0) };
    log(`  ${n(STREAMED)} documents written to the table and indexed from the stream in ${f(streamSeconds, 1)} s`);
    // The rebuild reads the whole table: first REBUILT documents more that no change ever announced (as a restored
    // backup has them), so that it rebuilds at least the 100,000.
    await service.seed(REBUILT, fixture.writeFolderId, { withoutChanges: true });
    await service.settled(1_800_000); // the stream read past them before the rebuild starts
    const rebuilt = await service.reindexSearch();
    const perSecond = rebuilt.items / rebuilt.seconds;
    const reindex = {
      items: rebuilt.items,
      withoutChanges: REBUILT,
      seconds: round(rebuilt.seconds, 1),
      perSecond: round(perSecond, 0),
      projected100kSeconds: round(TARGET / perSecond, 0),
    };
    log(
      `  rebuild: ${n(rebuilt.items)} items in ${f(rebuilt.seconds, 1)} s (${f(perSecond, 0)}/s; 100,000 → ${f(DOCUMENTS / perSecond, 0)} s)`,
    );

    const storageGb = built.tableBytes / 1e9;
    const perMillion = searchPerMillion({
      queryMs: oneAtATime.bare.p50,
      functionMs: oneAtATime.service.p50,
      readUnits: MEMBERSHIP_READ_UNITS,
      responseBytes: bareOne.meanResponseBytes,
    });
    const result: SearchResult = {
      documents: DOCUMENTS,
      longDocuments: built.long,
      pdfs: PDFS,
      build: { seconds: round(built.seconds, 1), perSecond: round(DOCUMENTS / built.seconds, 0), tableBytes: built.tableBytes },
      oneAtATime,
      perQuery,
      commonWords: pct(commonSamples),
      throughput,
      freshness,
      stream,
      reindex,
      cost: {
        perMillion: round(perMillion.total, 3),
        lines: perMillion.lines.map((line) => ({ item: line.item, dollars: round(line.dollars, 3) })),
        idleMonth: round(searchIdleCost({ databaseSecrets: 1 }, storageGb).total, 2),
        storageGb: round(storageGb, 2),
      },
      queries: QUERIES,
    };
    return { search: result };
  },
};
